/**
 * The directory a docs block or an example runs in (scripts/docs-runner.mjs, scripts/examples-rerun.check.ts): links
 * to the repository's folders (examples/, conformance/, scripts/, ...; read, never written), a node_modules/ of links
 * in which `agentkit` is this repository, a HOME of its own, and an environment in which `agentkit` and
 * `npx agentkit` are the built CLI (dist/cli/main.js), Node processes may connect to loopback only
 * (scripts/docs-net-guard.mjs), npm runs offline, and no credential, store or proxy variable of the caller leaks in.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LINKED = ['examples', 'conformance', 'scripts', 'test-support', 'docs', 'spec', 'generated', 'src', 'cli', 'dist'];
const LEAKS =
  /^(AGENTKIT_(LOCAL_DB|API_KEY|TARGET|PROJECT|CHECKPOINT_DB_PATH|SERVE_TOKEN|TEST_TMPDIR|COVERAGE_RECORDS)|XDG_.*|.*_API_KEY|https?_proxy|HTTPS?_PROXY)$/;

/**
 * @param {string} scratch a directory the caller owns and removes; every sandbox directory is created inside it
 * @returns {{ dir: () => string, env: (dir: string) => NodeJS.ProcessEnv }}
 */
export function createSandbox(scratch) {
  const shimDir = path.join(scratch, 'bin');
  mkdirSync(shimDir, { recursive: true });
  writeFileSync(path.join(shimDir, 'agentkit'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(root, 'dist/cli/main.js')}" "$@"\n`);
  chmodSync(path.join(shimDir, 'agentkit'), 0o755);
  return {
    dir() {
      const dir = mkdtempSync(path.join(scratch, 'block-'));
      for (const name of LINKED) symlinkSync(path.join(root, name), path.join(dir, name));
      const modules = path.join(dir, 'node_modules');
      mkdirSync(path.join(modules, '.bin'), { recursive: true });
      for (const name of readdirSync(path.join(root, 'node_modules'))) {
        if (!name.startsWith('.')) symlinkSync(path.join(root, 'node_modules', name), path.join(modules, name));
      }
      for (const name of readdirSync(path.join(root, 'node_modules/.bin')))
        symlinkSync(path.join(root, 'node_modules/.bin', name), path.join(modules, '.bin', name));
      symlinkSync(root, path.join(modules, 'agentkit'));
      symlinkSync(path.join(shimDir, 'agentkit'), path.join(modules, '.bin', 'agentkit'));
      mkdirSync(path.join(dir, '.home'));
      // TypeScript blocks and the files they write are ES modules (top-level await), as in a project of type module.
      writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
      return dir;
    },
    env(dir) {
      const env = { ...process.env };
      for (const name of Object.keys(env)) if (LEAKS.test(name)) delete env[name];
      return {
        ...env,
        HOME: path.join(dir, '.home'),
        PATH: `${shimDir}${path.delimiter}${env.PATH}`,
        NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${path.join(root, 'scripts/docs-net-guard.mjs')}`.trim(),
        npm_config_offline: 'true',
        npm_config_update_notifier: 'false',
        npm_config_fund: 'false',
        npm_config_audit: 'false',
        FORCE_COLOR: '0',
        NO_COLOR: '1',
        AGENTKIT_TEST_PG_URL: process.env.AGENTKIT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
      };
    },
  };
}
