/**
 * Delta checkpoints seen from outside: rows store only what changed, every read path returns full states and node
 * outputs, a prune never leaves a kept row without its base, a base deleted by another process costs a full snapshot,
 * and docs/durability.md's example runs as written.
 */
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import pg from 'pg';
import { Chain, PostgresCheckpointer } from '../../src/index.js';
import { registerSecret } from '../../src/config/secrets.js';
import { checkpointerFor, conformance, type Backend, runTsFile } from '../harness/index.js';
import { setWriteStampSource } from '../../src/durability/write-hook.js';

// Rows are written as a connected process writes them (queued, docs/adr/0054): these scenarios read them back through
// the replication outbox.
setWriteStampSource(() => ({ queued: true, project: '' }));

const area = conformance('durability: delta checkpoints');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface StoredRowText {
  checkpoint_id: string;
  delta_base: string | null;
  /** The stored state's text (a compressed delta decompressed here, with zlib, not with agentkit's code). */
  state: string;
  /** Bytes the state takes in its column: the text's UTF-8, or the compressed delta's (Postgres, ADR 0028). */
  stored_bytes: number;
  compressed: boolean;
}

/** `(checkpoint_id, delta_base, stored state text)` of an execution's rows, read with the backend's own SQL. */
async function storedRows(backend: Backend, executionId: string): Promise<StoredRowText[]> {
  if (backend.kind === 'sqlite') {
    const db = new Database(backend.dbPath, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT checkpoint_id, delta_base, state_snapshot AS state FROM checkpoints WHERE execution_id = ? ORDER BY rowid')
        .all(executionId) as Array<{ checkpoint_id: string; delta_base: string | null; state: string }>;
      return rows.map((row) => ({ ...row, stored_bytes: Buffer.byteLength(row.state), compressed: false }));
    } finally {
      db.close();
    }
  }
  if (backend.kind !== 'postgres') throw new Error('a storage backend is needed');
  const client = new pg.Client({ connectionString: backend.url });
  await client.connect();
  try {
    const result = await client.query<{ checkpoint_id: string; delta_base: string | null; text: string | null; deflated: Buffer | null; snapshot: string }>(
      `SELECT checkpoint_id, delta_base, state_delta AS text, state_delta_z AS deflated, state_snapshot::text AS snapshot
       FROM "${backend.schema}".checkpoints WHERE execution_id = $1 ORDER BY seq`,
      [executionId],
    );
    return result.rows.map((row) => {
      assert.ok(row.text === null || row.deflated === null, `row ${row.checkpoint_id} stores its delta once, as text or compressed`);
      const state = row.deflated ? inflateRawSync(row.deflated).toString('utf8') : (row.text ?? row.snapshot);
      return {
        checkpoint_id: row.checkpoint_id,
        delta_base: row.delta_base,
        state,
        stored_bytes: row.deflated ? row.deflated.length : Buffer.byteLength(state),
        compressed: row.deflated !== null,
      };
    });
  } finally {
    await client.end();
  }
}

const doc = (i: number) => `doc ${i} `.padEnd(1024, '.');

area.scenario('a growing chain state is stored as appends; every read path returns the full states and node outputs', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const chain = new Chain('grower', { checkpointer });
  for (let i = 0; i < 30; i++) {
    chain.addNode(`n${i}`, (state) => ({ log: [...((state.log as string[] | undefined) ?? []), doc(i)], count: i + 1 }));
    if (i > 0) chain.connect(`n${i - 1}`, `n${i}`);
  }
  const result = await chain.run('go', { executionId: 'grow' });
  assert.is(result.status, 'completed');
  const rows = await checkpointer.list('grow');
  assert.equal(
    rows.map((r) => r.node_id),
    ['__run_start__', ...Array.from({ length: 30 }, (_, i) => `n${i}`), 'run_end'],
  );
  rows.slice(1, 31).forEach((row, i) => {
    assert.equal((row.state_snapshot.log as string[]).length, i + 1);
    assert.is((row.state_snapshot.log as string[])[i], doc(i));
    assert.equal(row.node_output, { log: row.state_snapshot.log, count: i + 1 }, 'the node output, read back whole');
  });
  assert.equal(rows.at(-1)!.state_snapshot, result.final_state);
  assert.equal(await checkpointer.getLast('grow'), rows.at(-1));
  assert.equal(await checkpointer.getById(rows[15]!.checkpoint_id), rows[15]);
  const unsynced = (await checkpointer.fetchUnsynced(100)).map((u) => u.checkpoint);
  assert.equal(unsynced, rows, 'replication hands out full rows');
  // Rows returned together do not share objects.
  (rows[29]!.state_snapshot.log as string[]).push('changed');
  assert.is((rows[30]!.state_snapshot.log as string[]).length, 30);

  const stored = await storedRows(t.backend, 'grow');
  assert.equal(
    stored.map((r) => r.delta_base),
    [null, ...stored.slice(0, -1).map((r) => r.checkpoint_id)],
    'one snapshot, then each row on the previous one',
  );
  const bytes = stored.reduce((n, r) => n + r.state.length, 0);
  assert.ok(bytes < 30 * 1024 * 1.3, `state bytes stored: ${bytes} for 30 KB appended (each row only its own entry)`);
});

area.scenario('prune keeps every kept row readable: a kept row built on pruned rows is rewritten whole first', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const base = { execution_id: 'p', chain_name: 'c', step_type: 'node' as const };
  const history: string[] = [];
  const at = (day: number) => `2020-01-0${day}T00:00:00.000000Z`;
  const written = [];
  for (let i = 0; i < 4; i++) {
    history.push(doc(i));
    written.push(
      await checkpointer.put({ ...base, node_id: `n${i}`, state_snapshot: { history: [...history], i }, created_at: i < 3 ? at(i + 1) : undefined }),
    );
  }
  assert.equal(
    (await storedRows(t.backend, 'p')).map((r) => r.delta_base === null),
    [true, false, false, false],
  );
  assert.is(await checkpointer.prune(new Date('2021-01-01T00:00:00Z')), 3, 'the three old rows');
  const kept = await checkpointer.list('p');
  assert.equal(
    kept.map((r) => r.node_id),
    ['n3'],
  );
  assert.equal(kept[0]!.state_snapshot, { history: history, i: 3 });
  assert.equal(
    (await storedRows(t.backend, 'p')).map((r) => r.delta_base),
    [null],
    'rewritten as a full state',
  );
  // The next row of the execution goes on from there.
  history.push(doc(4));
  await checkpointer.put({ ...base, node_id: 'n4', state_snapshot: { history: [...history], i: 4 } });
  assert.equal((await checkpointer.getLast('p'))!.state_snapshot, { history, i: 4 });
  assert.is(written.length, 4);
});

area.scenario('a base deleted by another process: the next row is a full snapshot, nothing dangles', {}, async (t) => {
  const writer = checkpointerFor(t.backend);
  const other = checkpointerFor(t.backend);
  t.defer(() => writer.close());
  t.defer(() => other.close());
  const row = (node: string, items: string[]) => ({ execution_id: 'gone', chain_name: 'c', node_id: node, state_snapshot: { items } });
  await writer.put(row('a', ['1']));
  await writer.put(row('b', ['1', '2']));
  assert.is(await other.deleteExecution('gone'), 2);
  await writer.put(row('c', ['1', '2', '3']));
  assert.equal(
    (await writer.list('gone')).map((r) => [r.node_id, r.state_snapshot]),
    [['c', { items: ['1', '2', '3'] }]],
  );
  assert.equal(
    (await storedRows(t.backend, 'gone')).map((r) => r.delta_base),
    [null],
  );
  // A write that fails (duplicate id) leaves the next row readable too.
  const first = await writer.put(row('d', ['x']));
  await writer.put({ ...row('e', ['x', 'y']), checkpoint_id: first.checkpoint_id }).then(
    () => assert.unreachable(),
    () => undefined,
  );
  await writer.put(row('f', ['x', 'y', 'z']));
  assert.equal((await other.getLast('gone'))!.state_snapshot, { items: ['x', 'y', 'z'] });
  // Several rows in one statement (a chain's last node with its run_end row), their base deleted meanwhile: all land,
  // the first whole, the second on the first; and with the base there, the statement stores both as deltas.
  assert.is(await other.deleteExecution('gone'), 3);
  const [h, i] = await writer.putWrites([row('h', ['x', 'y', 'z', 'w']), row('i', ['x', 'y', 'z', 'w', 'v'])]);
  assert.equal(
    (await storedRows(t.backend, 'gone')).map((r) => r.delta_base),
    [null, h!.checkpoint_id],
  );
  const [j] = await writer.putWrites([row('j', ['x', 'y', 'z', 'w', 'v', 'u']), row('k', ['x', 'y', 'z', 'w', 'v', 'u', 't'])]);
  assert.equal(
    (await storedRows(t.backend, 'gone')).map((r) => r.delta_base),
    [null, h!.checkpoint_id, i!.checkpoint_id, j!.checkpoint_id],
  );
  assert.equal(
    (await other.list('gone')).map((r) => (r.state_snapshot.items as string[]).length),
    [4, 5, 6, 7],
  );
  // A pause whose base was deleted meanwhile: the interrupted checkpoint is stored whole, with its pending row.
  await other.deleteExecution('gone');
  const paused = await writer.recordInterrupt(
    { ...row('p', ['x', 'y', 'z', 'w', 'v', 'u', 't', 's']), status: 'interrupted', interrupt_reason: 'approve?', interrupt_context: {} },
    { reason: 'approve?', context: {} },
  );
  assert.equal(
    (await storedRows(t.backend, 'gone')).map((r) => r.delta_base),
    [null],
  );
  assert.equal((await other.getLast('gone'))!.state_snapshot, { items: ['x', 'y', 'z', 'w', 'v', 'u', 't', 's'] });
  assert.equal(
    (await other.listPendingInterrupts()).filter((p) => p.execution_id === 'gone').map((p) => p.reason),
    ['approve?'],
  );
  // A pause that cannot be stored (its id is taken) leaves no pending row of its own: both or neither.
  await other.deletePendingInterruptAtomic('gone');
  const refused = await writer
    .recordInterrupt(
      { ...row('q', ['x']), status: 'interrupted', interrupt_reason: 'again?', interrupt_context: {}, checkpoint_id: paused.checkpoint.checkpoint_id },
      { reason: 'again?', context: {} },
    )
    .then(
      () => null,
      (error: Error) => error,
    );
  assert.match(refused?.message ?? '', /already exists/);
  assert.equal(
    (await other.listPendingInterrupts()).filter((p) => p.execution_id === 'gone'),
    [],
  );
});

area.scenario('the replication outbox read in batches hands out full states, batch after batch, whatever callers do with them', {}, async (t) => {
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  // Two executions interleaved, each a delta chain; batches of 7 start mid-chain.
  const expected = new Map<string, { items: string[] }>();
  const items: Record<string, string[]> = { a: [], b: [] };
  for (let i = 0; i < 40; i++) {
    const execution = i % 3 === 0 ? 'b' : 'a';
    items[execution] = [...items[execution]!, `${execution}${i}`];
    const row = await checkpointer.put({ execution_id: execution, chain_name: 'c', node_id: `n${i}`, state_snapshot: { items: items[execution]! } });
    expected.set(row.checkpoint_id, { items: items[execution]! });
  }
  assert.ok((await storedRows(t.backend, 'a')).filter((r) => r.delta_base !== null).length > 20, 'rows are stored as deltas');
  const seen: string[] = [];
  for (;;) {
    const batch = await checkpointer.fetchUnsynced(7);
    if (batch.length === 0) break;
    for (const { checkpoint } of batch) {
      assert.equal(checkpoint.state_snapshot, expected.get(checkpoint.checkpoint_id), `state of ${checkpoint.node_id}`);
      // A caller that changes what it was handed (the wire encoder does not, others may) changes no later read.
      (checkpoint.state_snapshot.items as string[]).push('changed');
      checkpoint.state_snapshot.extra = true;
      seen.push(checkpoint.checkpoint_id);
    }
    await checkpointer.markSynced(batch.map((u) => u.checkpoint.checkpoint_id));
  }
  assert.equal(seen, [...expected.keys()], 'every row once, oldest first');
});

area.scenario('a row checks and masks only what it stores: new messages are, old ones are not read again', {}, async (t) => {
  const secret = `delta-new-item-secret-${t.backend.kind}`;
  registerSecret(secret);
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const row = (node: string, messages: unknown[]) => ({ execution_id: 'checked', chain_name: 'c', node_id: node, state_snapshot: { messages } });
  // An old message that counts how often it is read: once stored, no later row may read it again.
  let reads = 0;
  const old = {
    role: 'tool',
    get content() {
      reads++;
      return 'an old result';
    },
  };
  const messages: unknown[] = [{ role: 'user', content: 'hi' }, old];
  await checkpointer.put(row('a', messages));
  assert.ok(reads > 0, 'the first row stores it');
  reads = 0;
  messages.push({ role: 'tool', content: `the key is ${secret}` });
  const second = await checkpointer.put(row('b', messages.slice()));
  messages.push({ role: 'assistant', content: 'done' });
  await checkpointer.put(row('c', messages.slice()));
  assert.is(reads, 0, 'rows after the first do not read the stored message again');
  const masked = { role: 'tool', content: 'the key is [REDACTED]' };
  assert.equal((second.state_snapshot.messages as unknown[])[2], masked, 'put returns the row as stored');
  assert.equal((await checkpointer.getLast('checked'))!.state_snapshot.messages, [
    { role: 'user', content: 'hi' },
    { role: 'tool', content: 'an old result' },
    masked,
    { role: 'assistant', content: 'done' },
  ]);
  const stored = await storedRows(t.backend, 'checked');
  assert.equal(
    stored.map((r) => r.delta_base === null),
    [true, false, false],
    'the later rows are deltas',
  );
  assert.not.ok(
    stored.some((r) => r.state.includes(secret)),
    'no stored text holds the secret',
  );
  // A new item that is not JSON is refused with its place in the whole history named, and nothing is written.
  const refused = await checkpointer.put(row('d', [...messages, { role: 'tool', content: new Map() }])).then(
    () => null,
    (error: Error) => error,
  );
  assert.is(refused?.name, 'ValidationError');
  assert.match(refused!.message, /\$\.state_snapshot\.messages\[4\]\.content: a Map instance/);
  const refusedPair = await checkpointer
    .putWrites([row('e', [...messages, { role: 'user', content: 'ok' }]), row('f', [...messages, { role: 'user', content: 'ok' }, { n: NaN }])])
    .then(
      () => null,
      (error: Error) => error,
    );
  assert.match(refusedPair?.message ?? '', /\$\.state_snapshot\.messages\[5\]\.n: NaN is not a finite number/);
  assert.equal(
    (await checkpointer.list('checked')).map((r) => r.node_id),
    ['a', 'b', 'c'],
    'neither refused write stored a row',
  );
  await checkpointer.put(row('g', [...messages, { role: 'user', content: 'next' }]));
  assert.is(((await checkpointer.getLast('checked'))!.state_snapshot.messages as unknown[]).length, 5, 'the next row reads back whole');
});

area.scenario('a secret split across two appended texts is masked whole; a secret registered later masks the next row whole', {}, async (t) => {
  const split = `delta-split-secret-${t.backend.kind}`;
  registerSecret(split);
  const checkpointer = checkpointerFor(t.backend);
  t.defer(() => checkpointer.close());
  const put = (execution: string, node: string, state: Record<string, unknown>) =>
    checkpointer.put({ execution_id: execution, chain_name: 'c', node_id: node, state_snapshot: state });
  // A text streamed in pieces: the secret's first half ends one row, its second half starts the next.
  const half = split.length >> 1;
  await put('stream', 'a', { text: `streaming: ${split.slice(0, half)}` });
  await put('stream', 'b', { text: `streaming: ${split} and on` });
  await put('stream', 'c', { text: `streaming: ${split} and on, more` });
  assert.is((await checkpointer.getLast('stream'))!.state_snapshot.text, 'streaming: [REDACTED] and on, more');
  const streamRows = await storedRows(t.backend, 'stream');
  assert.not.ok(
    streamRows.some((r) => r.state.includes(split)),
    'no stored text holds it',
  );
  assert.equal(
    streamRows.map((r) => r.delta_base === null),
    [true, false, false],
  );
  // Rows written before a secret is known hold it; once registered, the next row stores the whole state, masked.
  const late = `delta-late-secret-${t.backend.kind}`;
  const history = [{ role: 'tool', content: `said ${late}` }];
  await put('late', 'a', { messages: history });
  await put('late', 'b', { messages: [...history, { role: 'user', content: 'more' }] });
  registerSecret(late);
  await put('late', 'c', { messages: [...history, { role: 'user', content: 'more' }, { role: 'user', content: 'again' }] });
  assert.equal(
    (await storedRows(t.backend, 'late')).map((r) => r.delta_base === null),
    [true, false, true],
    'a full snapshot after the secret',
  );
  assert.equal((await checkpointer.getLast('late'))!.state_snapshot.messages, [
    { role: 'tool', content: 'said [REDACTED]' },
    { role: 'user', content: 'more' },
    { role: 'user', content: 'again' },
  ]);
});

area.scenario(
  'large deltas are stored compressed on Postgres; short and incompressible ones as text; every read path sees them whole',
  { backends: ['postgres'] },
  async (t) => {
    if (t.backend.kind !== 'postgres') throw new Error('a Postgres backend is needed');
    const { url, schema } = t.backend;
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    // A tool result of 1.5 KB of JSON (compresses well), 900 random printable characters (DEFLATE saves under a quarter:
    // kept as text), and a short reply.
    const json = JSON.stringify({
      results: Array.from({ length: 12 }, (_, i) => ({
        order: 4000 + i,
        status: 'shipped',
        city: 'Oslo',
        note: `order ${4000 + i} leaves the warehouse today`,
      })),
    });
    const printable = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i))
      .filter((c) => c !== '"' && c !== '\\')
      .join('');
    const noise = [...randomBytes(900)].map((b) => printable[b % printable.length]).join('');
    const messages: Array<Record<string, unknown>> = [{ role: 'user', content: 'track my orders' }];
    const put = (node: string, message: Record<string, unknown>) => {
      messages.push(message);
      return checkpointer.put({ execution_id: 'z', chain_name: 'desk', node_id: node, step_type: 'tool_call', state_snapshot: { messages: [...messages] } });
    };
    await checkpointer.put({ execution_id: 'z', chain_name: 'desk', node_id: 'start', state_snapshot: { messages: [...messages] } });
    const jsonRow = await put('json', { role: 'tool', content: json });
    await put('noise', { role: 'tool', content: noise });
    await put('short', { role: 'assistant', content: 'All twelve orders are on their way.' });
    const stored = await storedRows(t.backend, 'z');
    assert.equal(
      stored.map((r) => [r.delta_base === null, r.compressed]),
      [
        [true, false],
        [false, true],
        [false, false],
        [false, false],
      ],
    );
    assert.ok(stored[1]!.stored_bytes < json.length / 3, `the JSON result's delta takes ${stored[1]!.stored_bytes} bytes for ${json.length} of text`);
    assert.ok(JSON.parse(stored[1]!.state).append.messages[0].content === json, 'the compressed delta is the delta document');
    // Every read path returns full states: by id, last, list, the outbox, a claim's decision row, a prune's rewrite.
    const expected = (n: number) => messages.slice(0, n);
    assert.equal((await checkpointer.getById(jsonRow.checkpoint_id))!.state_snapshot.messages, expected(2));
    assert.equal((await checkpointer.getLast('z'))!.state_snapshot.messages, expected(4));
    assert.equal(
      (await checkpointer.list('z')).map((r) => (r.state_snapshot.messages as unknown[]).length),
      [1, 2, 3, 4],
    );
    assert.equal(
      (await checkpointer.fetchUnsynced(10)).map((u) => (u.checkpoint.state_snapshot.messages as unknown[]).length),
      [1, 2, 3, 4],
    );
    const last = (await checkpointer.getLast('z'))!;
    const paused = await checkpointer.recordInterrupt(
      {
        execution_id: 'z',
        chain_name: 'desk',
        node_id: 'refund',
        status: 'interrupted',
        step_type: 'hitl_pause',
        state_snapshot: { messages: [...messages, { role: 'tool', content: json.replace(/Oslo/g, 'Bergen') }] },
      },
      { reason: 'approve', context: {} },
    );
    assert.ok((await storedRows(t.backend, 'z')).at(-1)!.compressed, 'the interrupted row is a compressed delta too');
    const claim = await checkpointer.claimPendingInterrupt('z', { resume: { approved: true, metadata: {} }, claimedBy: 'test' });
    assert.equal(claim!.checkpoint.state_snapshot, paused.checkpoint.state_snapshot, 'the decision row copies the compressed delta and reads whole');
    assert.equal((await checkpointer.getLast('z'))!.state_snapshot, paused.checkpoint.state_snapshot);
    assert.ok(last.checkpoint_id !== claim!.checkpoint.checkpoint_id);
    // A server whose bytea_output is 'escape' (not the default hex) writes bytea inside json_agg in that form: the chain
    // reads decode it with pg's own parser.
    const escapeUrl = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c bytea_output=escape')}`;
    const escaped = new PostgresCheckpointer(escapeUrl, { schema });
    t.defer(() => escaped.close());
    assert.equal((await escaped.getById(stored[2]!.checkpoint_id))!.state_snapshot.messages, expected(3), 'a chain through the compressed delta');
    assert.equal(await escaped.getLast('z'), await checkpointer.getLast('z'));
    // A prune that deletes the base rewrites the kept rows whole (no compressed delta left without its base).
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.defer(() => client.end());
    await client.query(`UPDATE "${schema}".checkpoints SET created_at = now() - interval '2 days' WHERE execution_id = 'z' AND node_id = 'start'`);
    assert.is(await checkpointer.prune(86_400_000), 1, 'rows older than a day: the start row');
    const after = await storedRows(t.backend, 'z');
    assert.is(after.length, stored.length + 1, 'the start row went; the pause and the decision rows came');
    assert.is(after[0]!.checkpoint_id, jsonRow.checkpoint_id);
    assert.is(after[0]!.delta_base, null, 'the row built on the pruned one is rewritten whole');
    assert.not.ok(after[0]!.compressed, 'and keeps no compressed delta');
    assert.equal(JSON.parse(after[0]!.state).messages, expected(2));
    assert.equal((await checkpointer.getById(jsonRow.checkpoint_id))!.state_snapshot.messages, expected(2));
    assert.equal((await checkpointer.getLast('z'))!.state_snapshot, paused.checkpoint.state_snapshot);
  },
);

area.scenario('docs/durability.md delta example runs as written', { backends: ['sqlite'], timeoutMs: 30_000 }, async (t) => {
  const example = path.join(root, 'examples/durability/history-growth.ts');
  const page = await readFile(path.join(root, 'docs/durability.md'), 'utf8');
  const section = /### How rows are stored[\s\S]*?```ts\n([\s\S]*?)```\n\nIt prints:\n\n```\n([\s\S]*?)```/.exec(page);
  assert.is(section?.[1], await readFile(example, 'utf8'), 'the page shows the example file as it is');
  const run = await runTsFile([example], { cwd: t.cwd, env: { ...process.env, ...t.env } });
  assert.is(run.code, 0, run.stderr);
  assert.is(run.stdout, section![2], 'it prints what the page says');
});

area.run();
