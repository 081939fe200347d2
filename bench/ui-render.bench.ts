/**
 * Local UI time to first render: `/traces` with 10,000 traces in the store and a trace page with 2,000 spans, as API
 * time (the JSON route, validated) and page time in Debian's Chromium (navigation start to the first table row or
 * span drawn). Baselines measured in the same run: the store read the route wraps (`TraceStore.listTraces` /
 * `getTrace` in-process) and the app's empty page (`/nowhere`: boot, session check, no data). Targets: under 300 ms
 * API and 1 s page. Medians of 7 runs after one warm-up. Also the replay view of the 2,000-span trace (`GET
 * /api/replay/<id>` against `Replay.load` + `steps()` in-process; `/traces/<id>/replay` to the first step drawn).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { SQLiteCheckpointer } from '../src/durability/sqlite-checkpointer.js';
import { Replay } from '../src/replay/replay.js';
import { openLocalStore } from '../src/store/open.js';
import { TraceStore } from '../src/tracing/trace-store.js';
import { startUiServer } from '../src/ui/server.js';

const TRACES = 10_000;
const BIG_SPANS = 2_000;
const RUNS = 7;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const webDir = path.join(root, 'dist/ui-web');
if (!existsSync(path.join(webDir, 'index.html'))) throw new Error('build the web app first: npm run build');

const dir = await mkdtemp(path.join(tmpdir(), 'agentkit-bench-ui-'));
const dbPath = path.join(dir, 'local.db');

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}
function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

// Seed: 10,000 three-span traces over the last 23 hours, and one 2,000-span trace (a root, 40 turns of 49 spans).
const db = openLocalStore(dbPath);
const insert = db.prepare(
  'INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes, events) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
);
const now = Date.now();
db.transaction(() => {
  for (let t = 0; t < TRACES; t++) {
    const traceId = hex(t + 1, 32);
    const start = now - 23 * 3_600_000 + t * 8000;
    const rootId = hex(t * 4 + 1, 16);
    insert.run(
      rootId,
      traceId,
      null,
      'agent.support',
      iso(start),
      iso(start + 900),
      t % 17 === 0 ? 'ERROR' : 'OK',
      JSON.stringify({ 'agent.input': `question ${t}`, 'agent.output': `answer ${t}` }),
      '[]',
    );
    insert.run(
      hex(t * 4 + 2, 16),
      traceId,
      rootId,
      'llm.chat_completion',
      iso(start + 10),
      iso(start + 600),
      'OK',
      JSON.stringify({ 'gen_ai.response.content': 'Let me check.' }),
      '[]',
    );
    insert.run(
      hex(t * 4 + 3, 16),
      traceId,
      rootId,
      'tool.lookup',
      iso(start + 610),
      iso(start + 880),
      'OK',
      JSON.stringify({ 'tool.args': '{"id": 1}' }),
      '[]',
    );
  }
  const big = 'f'.repeat(32);
  const start = now - 60_000;
  insert.run('b'.repeat(16), big, null, 'agent.long_run', iso(start), iso(start + 40_000), 'OK', '{}', '[]');
  let n = 1;
  for (let turn = 0; turn < 40; turn++) {
    const turnId = hex(0xa000000 + turn, 16);
    const turnStart = start + turn * 1000;
    insert.run(
      turnId,
      big,
      'b'.repeat(16),
      'llm.chat_completion',
      iso(turnStart),
      iso(turnStart + 900),
      'OK',
      JSON.stringify({ 'gen_ai.response.content': `turn ${turn}` }),
      '[]',
    );
    n++;
    for (let i = 0; i < 49 && n < BIG_SPANS; i++, n++) {
      insert.run(
        hex(0xc000000 + n, 16),
        big,
        turnId,
        `tool.step_${i}`,
        iso(turnStart + i * 18),
        iso(turnStart + i * 18 + 15),
        'OK',
        JSON.stringify({ 'tool.args': `{"i": ${i}}` }),
        '[]',
      );
    }
  }
})();
db.close();

const checkpointer = new SQLiteCheckpointer(dbPath);
const store = new TraceStore({ dbPath });
const server = await startUiServer({ host: '127.0.0.1', port: 0, checkpointer, traceStore: store, auth: { mode: 'none' }, webDir });
const browser = await chromium.launch({
  executablePath: process.env.AGENTKIT_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

async function api(route: string): Promise<void> {
  const response = await fetch(`${server.url}${route}`);
  if (response.status !== 200) throw new Error(`${route}: ${response.status} ${await response.text()}`);
  await response.json();
}

/** Navigation start to `selector` drawn, measured in the page (performance.now() is relative to navigation start). */
async function page(route: string, selector: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const tab = await context.newPage();
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    await tab.goto(`${server.url}${route}`);
    await tab.waitForSelector(selector);
    const drawn = await tab.evaluate(() => new Promise<number>((resolve) => requestAnimationFrame(() => resolve(performance.now()))));
    if (i > 0) times.push(drawn);
  }
  await context.close();
  return median(times);
}

const bigTrace = 'f'.repeat(32);
const storeList = await timed(() => store.listTraces({ lastHours: 24 }));
const apiList = await timed(() => api('/api/traces'));
const storeTrace = await timed(() => store.getTrace(bigTrace));
const apiTrace = await timed(() => api(`/api/traces/${bigTrace}`));
const emptyPage = await page('/nowhere', 'h1');
const tracesPage = await page('/traces', '.vbody [role="row"]');
const tracePage = await page(`/traces/${bigTrace}`, '[role="treeitem"]');
const storeReplay = await timed(async () => (await Replay.load(bigTrace, { store })).steps());
const apiReplay = await timed(() => api(`/api/replay/${bigTrace}`));
const replayPage = await page(`/traces/${bigTrace}/replay`, '.steps .step');

const ms = (v: number) => `${v.toFixed(0)} ms`;
console.log(`store: ${TRACES} traces (${TRACES * 3} spans) + one ${BIG_SPANS}-span trace; medians of ${RUNS}`);
console.log(
  `API  GET /api/traces (10,000 rows)         ${ms(apiList).padStart(8)}   store read ${ms(storeList)} (x${(apiList / storeList).toFixed(2)})   target < 300 ms`,
);
console.log(
  `API  GET /api/traces/<id> (2,000 spans)    ${ms(apiTrace).padStart(8)}   store read ${ms(storeTrace)} (x${(apiTrace / storeTrace).toFixed(2)})   target < 300 ms`,
);
console.log(
  `page /traces, first row drawn              ${ms(tracesPage).padStart(8)}   empty page ${ms(emptyPage)} (x${(tracesPage / emptyPage).toFixed(2)})   target < 1000 ms`,
);
console.log(
  `page /traces/<id>, first span drawn        ${ms(tracePage).padStart(8)}   empty page ${ms(emptyPage)} (x${(tracePage / emptyPage).toFixed(2)})   target < 1000 ms`,
);
console.log(
  `API  GET /api/replay/<id> (2,000 steps)    ${ms(apiReplay).padStart(8)}   SDK load ${ms(storeReplay)} (x${(apiReplay / storeReplay).toFixed(2)})   target < 300 ms`,
);
console.log(
  `page /traces/<id>/replay, first step drawn ${ms(replayPage).padStart(8)}   empty page ${ms(emptyPage)} (x${(replayPage / emptyPage).toFixed(2)})   target < 1000 ms`,
);

await browser.close();
await server.close();
await checkpointer.close();
await rm(dir, { recursive: true, force: true });
