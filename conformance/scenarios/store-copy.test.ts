/**
 * `agentkit store copy --from <local.db> --to <postgres URL>` (issue 38): a local store with a paused execution (its
 * idempotent charge already made), a completed chain and an agent's trace moves into a Postgres schema; the paused run
 * resumes there without charging again; the traces read the same; its prompts (versions, labels, fragments) are read
 * from the target with their numbers and times (ADR 0062); its eval runs read the same there, each with its export
 * state (ADR 0064); a second copy adds nothing; bad values are refused
 * with one line and a password is never printed.
 */
import * as assert from 'uvu/assert';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { KnowledgeBase } from '../../src/kb/index.js';
import {
  Agent,
  EvalStore,
  PostgresCheckpointer,
  PromptRegistry,
  SQLiteCheckpointer,
  TraceStore,
  evaluate,
  flushTraces,
  markFavorite,
} from '../../src/index.js';
import { annotationStoreOf } from '../../src/annotations/index.js';
import { forkStoreOf } from '../../src/forks/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { approvalChain, fiveSteps } from '../fixtures/durability/chains.js';
import { conformance, startCounterServer } from '../harness/index.js';
import { storeValueOf } from '../harness/scenario.js';

const area = conformance('stores: store copy');

interface CopyJson {
  from: string;
  to: string;
  checkpoints: { executions: number; checkpoints: number; pending: number; idempotency: number };
  spans: { read: number; written: number; traces: number; redaction_key: string };
  prompts: { prompts: number; versions: number; labels: number; fragments: number };
  evals: { runs: number; cases: number };
  annotations: number;
  forks: number;
  kb: { bases: number; documents: number; chunks: number; skipped: Array<{ base: string; reason: string }> };
  left_in_file: Record<string, number>;
}

area.scenario(
  'a local store moves into Postgres once: paused runs resume there without repeating side effects, traces read the same',
  { backends: ['postgres'], surfaces: ['cli'], timeoutMs: 90_000 },
  async (t) => {
    if (t.backend.kind !== 'postgres') throw new Error('postgres only');
    const counter = await startCounterServer();
    t.defer(() => counter.close());
    const source = path.join(t.cwd, 'old', 'local.db');
    const target = storeValueOf(t.backend)!;

    // The source: a paused refund whose idempotent charge ran, a completed chain, an agent run with its trace.
    const local = new SQLiteCheckpointer(source);
    const paused = await approvalChain(local, { counterUrl: counter.url, charge: 'idempotent' }).run({ amount: 70 }, { executionId: 'refund-7' });
    assert.is(paused.status, 'paused');
    assert.is(counter.count('/charge'), 1);
    assert.is((await fiveSteps(local).run({}, { executionId: 'five-1' })).status, 'completed');
    const agent = new Agent({ name: 'helper', systemPrompt: 'Answer briefly.', llm: new ScriptedModel(['Forty-two.']), checkpointer: local, traceDb: source });
    const answered = await agent.run('What is six times seven?', { executionId: 'agent-1' });
    await flushTraces();
    await local.close();
    const sourceTraces = new TraceStore({ dbPath: source });
    const before = await sourceTraces.spans(answered.trace_id!);
    assert.ok(before.length >= 2, 'the agent run left its spans in the source');

    const localPrompts = new PromptRegistry({ dbPath: source });
    await localPrompts.registerFragment('tone', 'Be brief.');
    await localPrompts.register('support', 'v1 {{@tone}}');
    await localPrompts.register('support', 'v2 {{@tone}}', { labels: ['production'] });

    // Eval runs: one local-only (run while not connected), one queued for export, one already pushed.
    const ran = await evaluate(
      (input: unknown) => String(input).toUpperCase(),
      [
        { input: 'a', expected_output: 'A' },
        { input: 'b', expected_output: 'x' },
      ],
      ['exact_match'],
      {
        dbPath: source,
        runName: 'nightly',
      },
    );
    await flushTraces();
    const { error_rate: _rate, persisted: _persisted, db_path: _db, ...record } = ran;
    const localEvals = new EvalStore({ dbPath: source });
    const renamed = (id: string) => ({ ...record, run_id: id, cases: record.cases.map((c) => ({ ...c, case_id: `${id}-${c.case_id}` })) });
    await localEvals.saveRun({ ...renamed('queued-run'), synced: false });
    await localEvals.saveRun(renamed('pushed-run'));
    await localEvals.markPushed(['pushed-run']);
    // A favorite with a note and a UI replay fork, written through their owners.
    const marked = await markFavorite(ran.cases[0]!.trace_id!, { dbPath: source, note: 'a good answer' });
    const localForks = forkStoreOf(source);
    t.defer(() => localForks.close());
    const madeFork = await localForks.create({
      fork_id: 'fork-1',
      trace_id: ran.cases[0]!.trace_id!,
      step: 0,
      modifications: { prompt: 'Be brief.', input: null, tool_responses: [], llm_params: null, mode: 'recorded', allow_side_effects: false },
    });

    // Knowledge bases kept as files beside the source: one to copy, one the target already holds with other settings.
    const docs = path.join(t.cwd, 'docs');
    await mkdir(docs, { recursive: true });
    await writeFile(path.join(docs, 'refunds.md'), '# Refunds\nRefunds are possible within 30 days.\n\n## Gift cards\nGift cards cannot be refunded.\n');
    await writeFile(path.join(docs, 'shipping.txt'), 'Shipping takes two business days.\n');
    const helpdesk = new KnowledgeBase('helpdesk', { dbPath: source, env: {} });
    assert.is((await helpdesk.add(docs)).failed, 0);
    const localHits = await helpdesk.search('gift card refund', { mode: 'keyword', topK: 3 });
    await helpdesk.close();
    const other = new KnowledgeBase('other', { dbPath: source, env: {} });
    await other.add(path.join(docs, 'shipping.txt'));
    await other.close();
    const otherThere = new KnowledgeBase('other', { dbPath: target, env: {}, chunkSize: 400, overlap: 40 });
    await otherThere.ready();
    await otherThere.close();

    const first = await t.cli(['store', 'copy', '--from', source, '--to', target, '--json']);
    assert.is(first.code, 0, first.stderr);
    const copied = JSON.parse(first.stdout) as CopyJson;
    assert.is(copied.checkpoints.executions, 3);
    assert.ok(copied.checkpoints.checkpoints >= 10, `rows copied: ${copied.checkpoints.checkpoints}`);
    assert.is(copied.checkpoints.pending, 1);
    assert.is(copied.checkpoints.idempotency, 1);
    assert.ok(copied.spans.read >= before.length);
    assert.is(copied.spans.written, copied.spans.read);
    assert.is(copied.spans.redaction_key, 'adopted');
    assert.not.match(first.stdout, /password|secret/);
    assert.equal(copied.prompts, { prompts: 1, versions: 2, labels: 1, fragments: 1 });
    assert.is(copied.left_in_file.prompts, undefined, 'prompts no longer stay in the file');
    assert.equal(copied.evals, { runs: 3, cases: 6 });
    assert.is(copied.left_in_file['eval runs'], undefined, 'eval runs no longer stay in the file');
    assert.equal([copied.annotations, copied.forks, copied.left_in_file['favorites and notes']], [1, 1, undefined]);
    assert.equal(copied.kb.bases, 2);
    assert.is(copied.kb.documents, 2);
    assert.ok(copied.kb.chunks >= 2, `chunks copied: ${copied.kb.chunks}`);
    assert.equal(
      copied.kb.skipped.map((s) => s.base),
      ['other'],
    );
    assert.match(copied.kb.skipped[0]!.reason, /^the target's base cuts chunks of 400 \(overlap 40\), the file's of 1000 \(overlap 150\)$/);
    const sharedKb = new KnowledgeBase('helpdesk', { dbPath: target, env: {}, create: false });
    const sharedHits = await sharedKb.search('gift card refund', { mode: 'keyword', topK: 3 });
    const vectorHits = await sharedKb.search('gift card refund', { mode: 'vector', topK: 3 });
    await sharedKb.close();
    const key = (h: { source: string; ordinal: number }) => `${path.basename(h.source)}#${h.ordinal}`;
    assert.equal(sharedHits.map(key), localHits.map(key), 'the copied base answers as the file did');
    assert.is(vectorHits.length, 3, 'vectors were copied: vector search needs no re-embedding');
    const sharedAnnotations = annotationStoreOf(target);
    const sharedForks = forkStoreOf(target);
    t.defer(() => Promise.all([sharedAnnotations.close(), sharedForks.close()]));
    assert.equal(await sharedAnnotations.all(), [marked], 'the favorite and its note, with their time');
    assert.equal(await sharedForks.all(), [madeFork], 'the fork, with its modifications and times');
    const sharedEvals = new EvalStore({ dbPath: target });
    t.defer(() => sharedEvals.close());
    for (const id of [ran.run_id, 'queued-run', 'pushed-run']) assert.equal(await sharedEvals.getRun(id), await localEvals.getRun(id), id);
    assert.equal(
      (await sharedEvals.localOnlyRuns('')).map((r) => r.run_id),
      [ran.run_id],
      'only the local-only run is left for platform push --evals',
    );
    assert.equal(
      (await sharedEvals.unsyncedRuns()).runs.map((r) => r.run_id),
      ['queued-run'],
    );
    const sharedPrompts = new PromptRegistry({ dbPath: target });
    t.defer(() => sharedPrompts.close());
    assert.equal(
      (await sharedPrompts.versions('support')).map((v) => v.toJSON()),
      (await localPrompts.versions('support')).map((v) => v.toJSON()),
    );
    assert.is((await sharedPrompts.load('support', { label: 'production' })).version, 2);
    assert.is(await sharedPrompts.fragment('tone'), 'Be brief.');

    // Idempotent: a second copy finds everything there.
    const second = await t.cli(['store', 'copy', '--from', source, '--to', target]);
    assert.is(second.code, 0, second.stderr);
    assert.match(second.stdout, /executions: 3 read; 0 checkpoint rows, 0 pending interrupts, 0 idempotency records new/);
    assert.match(second.stdout, new RegExp(`0 of ${copied.spans.read} span rows new; redaction key same`));
    assert.match(second.stdout, /prompts: 0 prompts, 0 versions, 0 labels, 0 fragments new/);
    assert.match(second.stdout, /eval runs: 0 runs, 0 cases new/);
    assert.match(second.stdout, /favorites and notes: 0 new; UI replay forks: 0 new/);
    assert.match(second.stdout, /knowledge bases: 2 read; 0 documents, 0 chunks new/);
    assert.match(second.stdout, /note: knowledge base 'other' was not copied: the target's base cuts chunks of 400/);

    // The target holds the same history, and the paused run resumes there: the charge is not made again.
    const remote = new PostgresCheckpointer(t.backend.url, { schema: t.backend.schema });
    t.defer(() => remote.close());
    const sourceRows = await new SQLiteCheckpointer(source).list('five-1');
    const targetRows = await remote.list('five-1');
    assert.equal(
      targetRows.map((r) => [r.checkpoint_id, r.node_id, r.created_at, r.state_snapshot]),
      sourceRows.map((r) => [r.checkpoint_id, r.node_id, r.created_at, r.state_snapshot]),
    );
    assert.equal(
      (await remote.listPendingInterrupts()).map((p) => p.execution_id),
      ['refund-7'],
    );
    const pending = await t.cli(['list-pending', '--json', '--db', target]);
    assert.is(pending.code, 0, pending.stderr);
    assert.match(pending.stdout, /refund-7/);
    const resumed = await approvalChain(remote, { counterUrl: counter.url, charge: 'idempotent' }).resume('refund-7', {
      resumeValue: { approved: true, metadata: {} },
    });
    assert.is(resumed.status, 'completed');
    assert.is(counter.count('/charge'), 1, 'the idempotent charge came from the copied record');

    const targetTraces = new TraceStore({ dbPath: target });
    t.defer(() => targetTraces.close());
    const after = await targetTraces.spans(answered.trace_id!);
    assert.equal(
      after.map((s) => [s.span_id, s.name, s.start_time, s.attributes]),
      before.map((s) => [s.span_id, s.name, s.start_time, s.attributes]),
    );
  },
);

area.scenario(
  'store copy refuses a URL source, a file target and a missing file with one line; a password is never printed',
  { backends: 'none', surfaces: ['cli'] },
  async (t) => {
    const file = path.join(t.cwd, 'local.db');
    const urlSource = await t.cli(['store', 'copy', '--from', 'postgres://app:s3cr3t-pw@127.0.0.1:1/db', '--to', 'postgres://127.0.0.1:1/db']);
    assert.is(urlSource.code, 2);
    assert.match(urlSource.stderr, /^error: --from must be a local store file/);
    const absent = await t.cli(['store', 'copy', '--from', file, '--to', 'postgres://127.0.0.1:1/db']);
    assert.is(absent.code, 2);
    assert.match(absent.stderr, /^error: store not found: .*local\.db does not exist/);
    const missing = await t.cli(['store', 'copy', '--to', 'postgres://127.0.0.1:1/db']);
    assert.is(missing.code, 2);
    assert.match(missing.stderr, /^error: .*--from/);
    const existing = new SQLiteCheckpointer(file);
    await existing.setup();
    await existing.close();
    const fileTarget = await t.cli(['store', 'copy', '--from', file, '--to', path.join(t.cwd, 'other.db')]);
    const unreachable = await t.cli(['store', 'copy', '--from', file, '--to', 'postgres://app:s3cr3t-pw@127.0.0.1:1/db']);
    assert.is(unreachable.code, 1, unreachable.stderr);
    assert.match(unreachable.stderr, /^error: .*unavailable: the server refused the connection/, unreachable.stderr);
    assert.is(fileTarget.code, 2);
    assert.match(fileTarget.stderr, /^error: --to must be a postgres:\/\/\.\.\.\?schema=<name> URL/);
    for (const run of [urlSource, absent, fileTarget, missing, unreachable]) {
      assert.is(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.not.match(run.stderr + run.stdout, /s3cr3t-pw/);
    }
  },
);

area.run();
