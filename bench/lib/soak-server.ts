/**
 * The soak's server process: `agent serve` of a target (in-process API, same code path as the CLI) on a free port.
 * Prints `{"port": n}` once listening; answers each `heap` line on stdin with the heap after a full GC
 * (`{"heapUsed": bytes, "rss": bytes}`). Run with --expose-gc.
 *
 * `BENCH_OWN_CONTEXT=1`: the process registers OpenTelemetry's own AsyncLocalStorage context manager before agentkit
 * starts tracing, as an application with its own OpenTelemetry setup does, and agentkit keeps it. (It weighed the one
 * storage agentkit shared between its scope and OpenTelemetry until ADR 0048 dropped it: a tie.)
 */
import { createInterface } from 'node:readline';
import { localDbPath } from '../../src/config/paths.js';
import { toServeTarget } from '../../src/serve/adapters.js';
import { startAgentServer } from '../../src/serve/server.js';
import { loadTarget } from '../../src/targets.js';
import { flushTraces } from '../../src/tracing/setup.js';

if (process.env.BENCH_OWN_CONTEXT === '1') {
  const { context } = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  if (!context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()))
    throw new Error('BENCH_OWN_CONTEXT: a context manager was registered already');
}

const spec = process.argv[2]!;
const loaded = await loadTarget(spec, { cwd: process.cwd() });
const target = toServeTarget(loaded.value, { traceDb: localDbPath({ env: process.env, cwd: process.cwd() }) });
const server = await startAgentServer(target, { host: '127.0.0.1', port: 0, log: (line) => process.stderr.write(`${line}\n`) });
process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'heap') continue;
  // The last requests' spans are stored and their sockets, timers and batches settle first; then several full
  // collections (a pass may only schedule finalizers whose memory the next frees).
  await flushTraces();
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usage = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ heapUsed: usage.heapUsed, rss: usage.rss })}\n`);
}
await server.close();
