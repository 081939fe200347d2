/**
 * `make check-docs`, second half (a uvu file run on its own, not by `npm test`: it takes a minute or two, and the
 * docs step of .ci/run is where docs and examples are checked): every example under examples/ runs twice in a row in one fresh directory (the docs runner's sandbox: the repository
 * linked in, `agentkit` resolving to it, loopback only) and exits 0 both times: ids are fresh and set-up is
 * idempotent (docs/adr/0061-docs-that-run.md). An example that needs something outside the machine is run with it
 * (the local Platform, a served agent) and, without it, must stop with one `error:` line naming it, never a stack trace.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suite } from '../test-support/uvu.js';
// @ts-expect-error a plain ES module without declarations (scripts/ is not type-checked)
import { createSandbox, root } from './docs-sandbox.mjs';

const test = suite('examples: each runs twice in a row', { timeoutMs: 120_000 });
const scratch = mkdtempSync(path.join(os.tmpdir(), 'agentkit-examples-'));
const sandbox = createSandbox(scratch);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(dir: string, file: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: dir,
      env: { ...sandbox.env(dir), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('close', (code) => {
      kill(child);
      resolve({ code, stdout, stderr });
    });
  });
}

function kill(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Starts a server in `dir` and resolves with the first http:// URL it prints. */
function serve(dir: string, argv: string[]): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0] as string, argv.slice(1), { cwd: dir, env: sandbox.env(dir), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk;
      const url = /http:\/\/127\.0\.0\.1:\d+/.exec(seen)?.[0];
      if (url) resolve({ url, child });
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.on('close', (code) => reject(new Error(`server exited ${code}: ${seen}`)));
  });
}

function assertOneErrorLine(result: Run, names: RegExp): void {
  assert.is.not(result.code, 0);
  const lines = result.stderr.trim().split('\n');
  const last = lines.at(-1) ?? '';
  assert.match(last, /^error: /);
  assert.match(last, names);
  assert.not.match(result.stderr, /^\s+at /m, `a stack trace:\n${result.stderr}`);
}

/** Examples that need something beyond the machine: how to provide it, and what the one-line error names without it. */
const NEEDS: Record<string, { without: RegExp; provide?: (dir: string) => Promise<{ env: Record<string, string>; stop: () => void }> }> = {
  'ai-sdk/openai-agent.ts': { without: /OPENAI_API_KEY/ },
  'connected/walkthrough.ts': {
    without: /AGENTKIT_API_KEY/,
    provide: async (dir) => {
      // The Platform the package ships (`agentkit platform serve`), with a key made by `platform keys create`.
      const cli = path.join(root, 'dist/cli/main.js');
      const db = path.join(dir, 'platform.db');
      const scopes = ['checkpoints:read', 'checkpoints:write', 'claims', 'evals:write', 'evals:read'].flatMap((s) => ['--scope', s]);
      const created = spawnSync(process.execPath, [cli, 'platform', 'keys', 'create', '--db', db, '--project', 'default', ...scopes], { encoding: 'utf8' });
      if (created.status !== 0) throw new Error(`platform keys create failed: ${created.stderr}`);
      const platform = await serve(dir, [cli, 'platform', 'serve', '--port', '0', '--db', db]);
      return { env: { AGENTKIT_API_KEY: created.stdout.trim(), AGENTKIT_TARGET: platform.url }, stop: () => kill(platform.child) };
    },
  },
  'serving/retry-with-key.ts': {
    without: /no answer after 5 attempts \(is an agent served at/,
    provide: async (dir) => {
      const server = await serve(dir, [
        path.join(root, 'dist/cli/main.js'),
        'agent',
        'serve',
        'examples/quickstart-agent.ts:support',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
      ]);
      return { env: { AGENT_URL: server.url }, stop: () => kill(server.child) };
    },
  },
};

/** Files that print nothing when run: a module other files load, a stdio server that ends when stdin closes. */
const SILENT = new Set(['evals/support-agent.ts', 'tools/calculator-mcp-server.ts']);

const examples = (readdirSync(path.join(root, 'examples'), { recursive: true }) as string[]).filter((file) => file.endsWith('.ts')).sort();

test('finds the examples', () => {
  assert.ok(examples.length >= 15, examples.join(', '));
  assert.ok(examples.includes('prompts/support-agent.ts'));
});

for (const example of examples) {
  const need = NEEDS[example];
  test(`${example}: twice in a row, exit 0 both times${need ? ' (with its prerequisite)' : ''}`, async () => {
    const dir = sandbox.dir();
    if (need && !need.provide) {
      // Nothing on this machine can stand in for it: it must say so in one line, twice.
      for (const _round of [1, 2]) assertOneErrorLine(await run(dir, `examples/${example}`), need.without);
      return;
    }
    const provided = need?.provide ? await need.provide(dir) : null;
    try {
      for (const round of [1, 2]) {
        const result = await run(dir, `examples/${example}`, provided?.env);
        assert.is(result.code, 0, `round ${round} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
        // Run through a linked path (as the docs runner does), its main block still runs and prints.
        if (!SILENT.has(example)) assert.ok(result.stdout.trim(), `round ${round} printed nothing`);
      }
    } finally {
      provided?.stop();
    }
  });
  if (need?.provide) {
    test(`${example}: without its prerequisite, one error line naming it`, async () => {
      assertOneErrorLine(await run(sandbox.dir(), `examples/${example}`), need.without);
    });
  }
}

test.after(() => rmSync(scratch, { recursive: true, force: true }));

test.run();
