/**
 * The package as a consumer gets it. `npm pack` the checkout (dist/ is already built by `npm test`; `--ignore-scripts`
 * skips the prepack rebuild), unpack the tarball into the node_modules of a temporary ESM project and a temporary
 * CommonJS project, and give each exactly agentkit's declared dependency closure (dependencies and optional
 * dependencies, transitively, read from package-lock.json and linked from this checkout: no registry, no network).
 * Each project type-checks a program using Agent, tool, Type, Chain, SQLiteCheckpointer and the client, and every
 * entry point's types, with `skipLibCheck: false` (so a type that leaks from a dev dependency fails here), compiles
 * it (CommonJS output loads agentkit through `require()`), serves its agent with the installed `agentkit agent
 * serve`, runs it against that server, and runs `npx agentkit version`.
 */
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { conformance, startCli } from '../harness/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = path.join(root, 'conformance/fixtures/package-consumer');
const exec = promisify(execFile);
const area = conformance('package: consumer projects');
// One surface each: the consumer drives the SDK and the installed CLI in the same scenario.
const options = { backends: 'none', surfaces: ['cli'], timeoutMs: 240_000 } as const;

interface Packed {
  tarball: string;
  files: string[];
}

let packed: Promise<Packed> | undefined;

/** `npm pack` once per run, into a temporary folder removed when the process exits. */
function pack(): Promise<Packed> {
  packed ??= (async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-pack-'));
    process.once('exit', () => void rm(dir, { recursive: true, force: true }));
    const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: root,
      env: offline(),
      maxBuffer: 64 * 1024 * 1024,
    });
    const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    return { tarball: path.join(dir, info!.filename), files: info!.files.map((file) => file.path) };
  })();
  return packed;
}

/** npm without the registry: every command here must succeed from local files alone. */
function offline(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    npm_config_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    NO_COLOR: '1',
    ...extra,
  };
}

interface LockEntry {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/**
 * The top-level package folders agentkit's published dependencies need, transitively, resolved the way Node does
 * (a nested node_modules first, then each ancestor's) over package-lock.json.
 */
async function dependencyClosure(): Promise<string[]> {
  const lock = JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const manifest = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as LockEntry;
  const seen = new Set<string>();
  const queue: Array<[from: string, name: string]> = Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }).map((name) => ['', name]);
  while (queue.length > 0) {
    const [from, name] = queue.shift()!;
    let key: string | undefined;
    for (let base = from; ; base = base.includes('/node_modules/') ? base.slice(0, base.lastIndexOf('/node_modules/')) : '') {
      const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[candidate]) {
        key = candidate;
        break;
      }
      if (!base) break;
    }
    if (!key) continue; // an optional or peer dependency that is not installed
    if (seen.has(key)) continue;
    seen.add(key);
    const entry = lock.packages[key]!;
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies })) queue.push([key, dep]);
  }
  return [...seen].filter((key) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(key)).map((key) => key.slice('node_modules/'.length));
}

/** A consumer project in `dir`: the unpacked tarball, its dependency closure, TypeScript, and the fixture sources. */
async function consumerProject(dir: string, kind: 'module' | 'commonjs'): Promise<void> {
  const { tarball } = await pack();
  const modules = path.join(dir, 'node_modules');
  await mkdir(path.join(modules, '.bin'), { recursive: true });
  await exec('tar', ['-xzf', tarball, '-C', modules]);
  await rename(path.join(modules, 'package'), path.join(modules, 'agentkit'));
  // What npm links for the package's `bin`.
  await symlink('../agentkit/dist/cli/main.js', path.join(modules, '.bin/agentkit'));
  // The consumer's own tools: TypeScript (a dev dependency of theirs) besides agentkit's closure.
  for (const name of [...(await dependencyClosure()), 'typescript']) {
    if (name.includes('/')) await mkdir(path.join(modules, path.dirname(name)), { recursive: true });
    await symlink(path.join(root, 'node_modules', name), path.join(modules, name), 'dir');
  }
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: `consumer-${kind}`, private: true, type: kind }, null, 2));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          types: ['node'],
          outDir: 'out',
          rootDir: 'src',
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  await cp(fixture, path.join(dir, 'src'), { recursive: true });
}

async function consumerScenario(t: { cwd: string; env: Record<string, string>; defer(fn: () => unknown): void }, kind: 'module' | 'commonjs'): Promise<void> {
  const dir = path.join(t.cwd, kind);
  await consumerProject(dir, kind);
  const env = offline({ AGENTKIT_LOCAL_DB: path.join(dir, 'local.db'), CONSUMER_DB: path.join(dir, 'chain.db') });

  const tsc = await exec(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { cwd: dir, env }).catch(
    (error: { stdout: string }) => error,
  );
  assert.is(tsc.stdout, '', `the consumer type-checks with skipLibCheck: false:\n${tsc.stdout}`);
  const compiled = await readFile(path.join(dir, 'out/main.js'), 'utf8');
  if (kind === 'commonjs') assert.match(compiled, /require\("agentkit"\)/, 'the CommonJS build loads agentkit with require()');
  else assert.match(compiled, /from 'agentkit'/, 'the ESM build imports agentkit');

  const server = startCli(['agent', 'serve', 'out/agent.js:support', '--host', '127.0.0.1', '--port', '0'], {
    cwd: dir,
    env,
    bin: path.join(dir, 'node_modules/agentkit/dist/cli/main.js'),
  });
  t.defer(() => server.kill());
  const [, url] = await server.waitForStderr(/serving agent '[^']+' on (http:\/\/[^ \n]+)/, 30_000);

  const run = await exec(process.execPath, ['out/main.js'], { cwd: dir, env: { ...env, AGENT_URL: url! } });
  const version = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).version as string;
  assert.is(
    run.stdout,
    [
      'agent: completed Order A-42 costs 50 USD. tools=lookup_order',
      'chain: completed doubled to 42 rows=__run_start__,double,describe,run_end',
      'client: ok completed Order A-42 costs 50 USD.',
      `version: ${version}`,
      '',
    ].join('\n'),
  );

  const npx = await exec('npx', ['--no', 'agentkit', 'version'], { cwd: dir, env });
  assert.match(npx.stdout, new RegExp(`^agentkit ${version.replace(/\./g, '\\.')}\\b`, 'm'));
}

area.scenario('the tarball ships a LICENSE, self-contained source maps, no build state and no install script', options, async (t) => {
  const { tarball, files } = await pack();
  assert.ok(files.includes('LICENSE'), 'LICENSE is packed');
  assert.not.ok(
    files.some((file) => file.endsWith('.tsbuildinfo')),
    'no .tsbuildinfo',
  );
  assert.not.ok(
    files.some((file) => file.startsWith('src/')),
    'TypeScript sources are not packed; maps carry them',
  );
  await exec('tar', ['-xzf', tarball, '-C', t.cwd]);
  const maps = files.filter((file) => file.endsWith('.map'));
  assert.ok(maps.length > 0, 'dist/ has source maps');
  for (const map of maps) {
    const parsed = JSON.parse(await readFile(path.join(t.cwd, 'package', map), 'utf8')) as { sources: string[]; sourcesContent?: string[] };
    assert.is(parsed.sourcesContent?.length, parsed.sources.length, `${map} embeds its sources`);
  }
  const manifest = JSON.parse(await readFile(path.join(t.cwd, 'package/package.json'), 'utf8')) as Record<string, any>;
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.is(manifest.scripts?.[hook], undefined, `no ${hook} script`);
  assert.is(manifest.license, 'Apache-2.0');
  assert.match(await readFile(path.join(t.cwd, 'package/LICENSE'), 'utf8'), /Apache License\s+Version 2\.0, January 2004/);
  for (const field of ['repository', 'homepage', 'bugs']) assert.ok(manifest[field], `package.json has ${field}`);
  const conditions = Object.values(manifest.exports as Record<string, unknown>).flatMap((entry) =>
    entry && typeof entry === 'object' ? Object.keys(entry) : [],
  );
  assert.not.ok(conditions.includes('source'), 'no public `source` condition (consumers use --conditions=source for their own code)');
  assert.ok((await readdir(path.join(t.cwd, 'package/dist/cli'))).includes('main.js'), 'the bin is prebuilt');
});

/**
 * Run in a consumer project: start each of agentkit's worker threads from the unpacked tarball's compiled modules
 * (the same helper the SDK uses) and print what each answered. Worker modules are no public entry point, so the
 * script reaches them by file URL.
 */
const THREADS_SCRIPT = `
import Database from 'better-sqlite3';
import { once } from 'node:events';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
const dist = pathToFileURL(path.resolve('node_modules/agentkit/dist/src') + '/').href;
const { startWorkerModule, workerModuleUrl } = await import(new URL('store/worker-module.js', dist).href);
const file = path.resolve('threads.db');
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.close();
const firstMessage = async (worker) => {
  const [message] = await Promise.race([once(worker, 'message'), once(worker, 'error').then(([error]) => { throw error; })]);
  return message;
};
// Each module as its starter names it, beside the starter's compiled file.
const beside = (starter, name) => workerModuleUrl(new URL(starter, dist).href, name);
const keeper = startWorkerModule(beside('store/wal-keeper.js', 'wal-keeper-worker'), { workerData: { file, intervalMs: 50, busyFrames: 1000, restartWaitMs: 10, busyIntervalMs: 20 } });
console.log('wal keeper:', await firstMessage(keeper));
keeper.postMessage('stop');
const drain = startWorkerModule(beside('platform/drain-thread.js', 'drain-worker'));
drain.postMessage({ id: 7, source: { driver: 'sqlite', path: path.resolve('no-such.db') }, connection: {} });
console.log('drain thread:', JSON.stringify(await firstMessage(drain)));
await drain.terminate();
`;

area.scenario("every worker thread starts from the tarball's compiled modules (the loader the SDK uses)", options, async (t) => {
  const dir = path.join(t.cwd, 'threads');
  await consumerProject(dir, 'module');
  await writeFile(path.join(dir, 'threads.mjs'), THREADS_SCRIPT);
  const { stdout } = await exec(process.execPath, ['threads.mjs'], { cwd: dir, env: offline() });
  assert.is(stdout, ['wal keeper: ready', 'drain thread: {"id":7,"result":{"synced":0,"quarantined":{},"outcome":"drained","error":null}}', ''].join('\n'));
});

area.scenario(
  'an ESM consumer type-checks (skipLibCheck: false), runs Agent, Chain, SQLiteCheckpointer and the client, and runs npx agentkit version',
  options,
  (t) => consumerScenario(t, 'module'),
);

area.scenario('a CommonJS consumer does the same, loading agentkit through require()', options, (t) => consumerScenario(t, 'commonjs'));

area.scenario(
  "the installed package's `npx agentkit platform serve` serves its store (SQLite or Postgres) with a key made by `npx agentkit platform keys create`",
  { surfaces: ['cli'], timeoutMs: 240_000 },
  async (t) => {
    const dir = path.join(t.cwd, 'platform');
    await consumerProject(dir, 'module');
    const env = offline();
    const created = await exec(
      'npx',
      [
        '--no',
        'agentkit',
        'platform',
        'keys',
        'create',
        '--db',
        t.store!,
        '--project',
        'tarball',
        '--scope',
        'checkpoints:read',
        '--scope',
        'checkpoints:write',
      ],
      {
        cwd: dir,
        env,
      },
    );
    const key = created.stdout.trim();
    assert.match(key, /^akp_[0-9a-f]{8}_/);
    const server = startCli(['platform', 'serve', '--db', t.store!, '--port', '0'], {
      cwd: dir,
      env,
      bin: path.join(dir, 'node_modules/agentkit/dist/cli/main.js'),
    });
    t.defer(() => server.kill());
    const [, url] = await server.waitForStderr(/serving .* on (http:\/\/127\.0\.0\.1:\d+)\n/, 60_000);
    assert.is(server.stdout(), `${url}\n`, 'the bound URL is the first line on stdout');
    const check = await fetch(`${url}/public/v1/auth/check`, { headers: { 'X-API-Key': key } });
    assert.equal([check.status, ((await check.json()) as { project_id: string }).project_id], [200, 'tarball']);
    const missing = await fetch(`${url}/public/v1/checkpoints/nothing/latest`, { headers: { 'X-API-Key': key } });
    assert.equal([missing.status, ((await missing.json()) as { code: string }).code], [404, 'checkpoint_not_found']);
    server.child.kill('SIGTERM');
    assert.equal((await server.exited).code, 0);
  },
);

area.run();
