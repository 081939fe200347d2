/**
 * A seeded fuzz of every served surface: 2,000 hostile requests per server (bad JSON, wrong types, unknown, huge and
 * too many keys, deep nesting, invalid UTF-8, over-cap declared, chunked and gzip bodies, odd methods and paths,
 * header injection and smuggling) sent as raw bytes. Every request is answered; no answer is a 5xx; every error is
 * a contract body `{detail, code}` with a known code; the server is alive afterwards. The longest event-loop block
 * seen during the run is printed (bench/README.md records it). Adding a server is one entry of `SERVERS`.
 */
import * as assert from 'uvu/assert';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { errorCodes } from '../../generated/errors.js';
import { conformance, type ScenarioContext } from '../harness/index.js';
import { fuzzCases, sendRaw, type FuzzTarget } from '../harness/fuzz.js';
import { weatherAgent } from '../fixtures/serving/runners.js';
import { createServeApp } from '../../src/serve/app.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { TraceStore } from '../../src/tracing/index.js';
import { createUiApp } from '../../src/ui/app.js';
import { newAuthFile } from '../../src/ui/auth-file.js';
import { issueSession } from '../../src/ui/session.js';

const area = conformance('served surfaces under a fuzz');

const REQUESTS = 2000;
const CONCURRENCY = 8;
const SEED = Number(process.env.AGENTKIT_FUZZ_SEED ?? 20261123);
const CAP = 64 * 1024;

interface FuzzedServer {
  name: string;
  target: Omit<FuzzTarget, 'maxBodyBytes'>;
  /** A GET route that answers 200 once the fuzz is over (default `/health`). */
  alivePath?: string;
  start(t: ScenarioContext): Promise<{ port: number }>;
}

/** A signed-in session for the UI's fuzz: every request carries it and the CSRF pair, so routes are reached. */
const UI_SECRET = 'f'.repeat(64);
const UI_CSRF = 'c'.repeat(64);

const SERVERS: FuzzedServer[] = [
  {
    name: 'served agent',
    target: {
      routes: ['GET /health', 'POST /run', 'POST /run/stream'],
      validBody: '{"input":"What is the weather in Oslo?"}',
      headers: { authorization: 'Bearer fuzz-token' },
    },
    start: async (t) => {
      const traceDb = path.join(t.cwd, 'traces.db');
      const server = await t.serve(createServeApp(toServeTarget(weatherAgent({ traceDb }), { traceDb }), { token: 'fuzz-token', maxBodyBytes: CAP }));
      return { port: Number(new URL(server.url).port) };
    },
  },
  {
    name: 'local UI',
    alivePath: '/api/auth/status',
    target: {
      routes: ['GET /api/auth/status', 'GET /api/overview', 'GET /api/traces', 'GET /api/pending-interrupts', 'POST /api/auth/login'],
      validBody: '{"username":"admin","password":"not the password"}',
      headers: { cookie: `agentkit_session=${issueSession('admin', UI_SECRET)}; agentkit_csrf=${UI_CSRF}`, 'x-csrf-token': UI_CSRF },
    },
    start: async (t) => {
      const dbPath = path.join(t.cwd, 'local.db');
      const checkpointer = new SQLiteCheckpointer(dbPath);
      t.defer(() => checkpointer.close());
      const file = { ...(await newAuthFile('admin', 'correct horse')), session_secret: UI_SECRET };
      const server = await t.serve(createUiApp({ checkpointer, traceStore: new TraceStore({ dbPath }), auth: { mode: 'password', file }, runners: [] }));
      return { port: Number(new URL(server.url).port) };
    },
  },
];

const known = new Set<string>(errorCodes);

for (const server of SERVERS) {
  area.scenario(
    `${server.name}: ${REQUESTS} seeded hostile requests, no 5xx, contract bodies, alive after`,
    { backends: 'none', surfaces: ['http'], timeoutMs: 120_000 },
    async (t) => {
      const { port } = await server.start(t);
      const cases = [...fuzzCases(SEED, REQUESTS, { ...server.target, maxBodyBytes: CAP })];
      const kinds = new Map<string, number>();
      const statuses = new Map<number, number>();
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const started = Date.now();
      let next = 0;
      const problems: string[] = [];
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < cases.length) {
            const index = next++;
            const item = cases[index]!;
            kinds.set(item.kind, (kinds.get(item.kind) ?? 0) + 1);
            const answer = await sendRaw(port, item.bytes);
            const where = `seed ${SEED} #${index} (${item.kind}) ${item.bytes.subarray(0, 120).toString('latin1').split('\r\n')[0]}`;
            if (!answer) {
              problems.push(`${where}: no HTTP answer`);
              continue;
            }
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            if (answer.status >= 500) problems.push(`${where}: ${answer.status} ${answer.body.slice(0, 200)}`);
            if (answer.status >= 400 && item.method !== 'HEAD') {
              let body: { detail?: unknown; code?: unknown } | null = null;
              try {
                body = JSON.parse(answer.body) as { detail?: unknown; code?: unknown };
              } catch {
                problems.push(`${where}: ${answer.status} body is not JSON: ${answer.body.slice(0, 200)}`);
                continue;
              }
              if (typeof body.detail !== 'string' || typeof body.code !== 'string' || !known.has(body.code)) {
                problems.push(`${where}: ${answer.status} body off the contract: ${answer.body.slice(0, 200)}`);
              } else if (answer.body.length > 20_000) {
                problems.push(`${where}: ${answer.status} error body of ${answer.body.length} bytes`);
              }
            }
          }
        }),
      );
      delay.disable();
      const elapsed = Date.now() - started;
      assert.equal(problems.slice(0, 20), [], `${problems.length} problems`);
      const health = await sendRaw(port, Buffer.from(`GET ${server.alivePath ?? '/health'} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`));
      assert.is(health?.status, 200, 'alive after the fuzz');
      assert.ok((statuses.get(200) ?? 0) > 0 && [...statuses.keys()].some((s) => s >= 400), 'both successes and refusals were exercised');
      assert.ok(kinds.size >= 12, `every generator ran: ${[...kinds.keys()].join(', ')}`);
      console.log(
        `fuzz ${server.name}: ${cases.length} requests (seed ${SEED}) in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; ` +
          `longest event-loop block ${(delay.max / 1e6).toFixed(1)} ms (p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms)`,
      );
    },
  );
}

area.run();
