import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { suite } from '../../test-support/uvu.js';
import { openLocalStore } from '../store/open.js';
import { TraceStore } from './trace-store.js';

const test = suite('tracing: SQLite prune in short batches', { timeoutMs: 120_000 });

test('a large prune deletes every old trace in short transactions: the event loop (and so the write lock) is never held for 1 s', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentkit-prune-'));
  try {
    const file = path.join(dir, 'local.db');
    const db = openLocalStore(file);
    const old = new Date(Date.now() - 48 * 3_600_000).toISOString().replace('Z', '000Z');
    const recent = new Date().toISOString().replace('Z', '000Z');
    const insert = db.prepare(
      "INSERT INTO spans (span_id, trace_id, parent_span_id, name, start_time, end_time, status, attributes) VALUES (?, ?, NULL, 'agent.bulk', ?, ?, 'OK', ?)",
    );
    const attributes = JSON.stringify({ text: 'x'.repeat(400) });
    db.transaction(() => {
      for (let i = 0; i < 40_000; i++) {
        const traceId = i.toString(16).padStart(32, '0');
        for (let s = 0; s < 3; s++) insert.run(`${i.toString(16).padStart(12, '0')}${s.toString().padStart(4, '0')}`, traceId, old, old, attributes);
      }
      insert.run('ffffffffffffffff', 'f'.repeat(32), recent, recent, attributes);
    })();
    db.close();

    // A timer ticking every 5 ms sees the longest stretch the prune held the thread (each batch is one synchronous
    // transaction, so the lock is held only inside such a stretch).
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    const started = performance.now();
    const pruned = await new TraceStore({ dbPath: file }).prune(24 * 3_600_000);
    const total = performance.now() - started;
    clearInterval(ticker);
    assert.is(pruned, 40_000);
    assert.ok(longest < 1000, `the prune held the thread for ${longest.toFixed(0)} ms at once (of ${total.toFixed(0)} ms)`);
    assert.ok(longest < total, 'the prune was split into several transactions');
    assert.equal(
      (await new TraceStore({ dbPath: file }).listTraces({ lastHours: 1 })).map((t) => t.trace_id),
      ['f'.repeat(32)],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
