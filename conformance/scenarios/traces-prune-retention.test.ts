/**
 * `traces prune` retention (issue 38) on both engines: the traces of a paused execution stay whatever their age, and
 * go once it is over; a trace an eval case cites stays (the eval runs live in the same store, ADR 0064); on SQLite a
 * favorite stays too. Everything else older than the cutoff goes.
 */
import * as assert from 'uvu/assert';
import { Agent, evaluate, flushTraces, markFavorite, withTraceDestination } from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { approvalChain } from '../fixtures/durability/chains.js';
import { checkpointerFor, conformance } from '../harness/index.js';

const area = conformance('traces: prune keeps what is not over');

area.scenario(
  "traces prune leaves a paused execution's traces and favorites; they go once the run is over",
  { surfaces: ['cli'], timeoutMs: 60_000 },
  async (t) => {
    const store = t.store!;
    const checkpointer = checkpointerFor(t.backend);
    t.defer(() => checkpointer.close());
    const chain = approvalChain(checkpointer);
    const paused = await withTraceDestination(store, () => chain.run('refund order 42', { executionId: 'exec-keep' }));
    assert.is(paused.status, 'paused');
    const finished = async (name: string) =>
      (await new Agent({ name, systemPrompt: 'Answer.', llm: new ScriptedModel([{ text: 'ok' }]), traceDb: store }).run('hi')).trace_id!;
    const plain = await finished('plain');
    const favorite = await finished('favorite');
    const evalRun = await evaluate((input: unknown) => String(input), [{ input: 'a', expected_output: 'a' }], ['exact_match'], { dbPath: store, cwd: t.cwd });
    const cited = evalRun.cases[0]!.trace_id!;
    await flushTraces();
    await markFavorite(favorite, { dbPath: store });
    await new Promise((resolve) => setTimeout(resolve, 20));

    const first = await t.cli(['traces', 'prune', '--older-than', '0s', '--db', store, '--json']);
    assert.is(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout), { pruned: 1 });
    assert.is((await t.cli(['traces', 'export', paused.trace_id!, '--db', store])).code, 0, 'the paused execution keeps its trace');
    assert.is((await t.cli(['traces', 'export', plain, '--db', store])).code, 1, 'an old finished run goes');
    assert.is((await t.cli(['traces', 'export', favorite, '--db', store])).code, 0, 'a favorite stays');
    assert.is((await t.cli(['traces', 'export', cited, '--db', store])).code, 0, 'a trace an eval case cites stays');

    const resumed = await withTraceDestination(store, () => chain.resume('exec-keep', { resumeValue: { approved: true, metadata: {} } }));
    assert.is(resumed.status, 'completed');
    await flushTraces();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await t.cli(['traces', 'prune', '--older-than', '0s', '--db', store, '--json']);
    assert.is(second.code, 0, second.stderr);
    assert.ok((JSON.parse(second.stdout) as { pruned: number }).pruned >= 1, second.stdout);
    assert.is((await t.cli(['traces', 'export', paused.trace_id!, '--db', store])).code, 1, 'once over, its traces go');
  },
);

area.run();
