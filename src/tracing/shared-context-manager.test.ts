import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { suite } from '../../test-support/uvu.js';
import { currentScope, runInScope } from '../scope/scope.js';
import { contextFrames } from './context-frames.js';
import { ensureTracing, shutdownTracing } from './setup.js';
import { SharedContextManager } from './shared-context-manager.js';

const test = suite('tracing: one storage for the execution scope and the OpenTelemetry context');
const KEY = createContextKey('agentkit.test');
const tick = () => new Promise((resolve) => setImmediate(resolve));

test.after(async () => {
  await shutdownTracing();
});

test('a scope entered inside a context keeps the context, and a context entered inside a scope keeps the scope, across awaits', async () => {
  ensureTracing();
  const outer = ROOT_CONTEXT.setValue(KEY, 'outer');
  const inner = ROOT_CONTEXT.setValue(KEY, 'inner');
  await context.with(outer, () =>
    runInScope({ executionId: 'exec-1', runnerName: 'r' }, async () => {
      await tick();
      assert.is(context.active().getValue(KEY), 'outer');
      await context.with(inner, async () => {
        await tick();
        assert.is(context.active().getValue(KEY), 'inner');
        assert.is(currentScope()?.executionId, 'exec-1');
        // Both in one frame of the one storage: nothing else is copied onto promises.
        const frame = contextFrames.getStore();
        assert.is((frame?.scope as { executionId: string } | undefined)?.executionId, 'exec-1');
        assert.is(frame?.otel, inner);
      });
      assert.is(context.active().getValue(KEY), 'outer');
      assert.is(currentScope()?.executionId, 'exec-1');
    }),
  );
  assert.is(context.active(), ROOT_CONTEXT);
  assert.is(currentScope(), undefined);
});

test('concurrent frames never see each other', async () => {
  ensureTracing();
  const seen = await Promise.all(
    ['a', 'b', 'c'].map((id) =>
      context.with(ROOT_CONTEXT.setValue(KEY, id), () =>
        runInScope({ executionId: id, runnerName: 'r' }, async () => {
          await tick();
          return `${currentScope()?.executionId}:${String(context.active().getValue(KEY))}`;
        }),
      ),
    ),
  );
  assert.equal(seen, ['a:a', 'b:b', 'c:c']);
});

test('bind keeps the bound context and takes the scope of the call; emitters run listeners in the bound context', async () => {
  const manager = new SharedContextManager().enable();
  const bound = manager.bind(ROOT_CONTEXT.setValue(KEY, 'bound'), () => `${currentScope()?.executionId}:${String(manager.active().getValue(KEY))}`);
  assert.is(runInScope({ executionId: 'caller', runnerName: 'r' }, bound), 'caller:bound');
  const emitter = manager.bind(ROOT_CONTEXT.setValue(KEY, 'emitter'), new EventEmitter());
  let heard = '';
  emitter.on('x', () => (heard = String(manager.active().getValue(KEY))));
  emitter.emit('x');
  assert.is(heard, 'emitter');
});

test('attach enters a context for the current chain and dispose restores the frame it replaced, scope included', async () => {
  const manager = new SharedContextManager().enable();
  await runInScope({ executionId: 'attached', runnerName: 'r' }, async () => {
    const token = manager.attach(ROOT_CONTEXT.setValue(KEY, 'attached'));
    assert.is(manager.active().getValue(KEY), 'attached');
    assert.is(currentScope()?.executionId, 'attached');
    token.dispose();
    token.dispose();
    assert.is(manager.active(), ROOT_CONTEXT);
    assert.is(currentScope()?.executionId, 'attached');
  });
});

test('disabling the manager (tracing shut down) leaves the execution scope working', async () => {
  const manager = new SharedContextManager().enable();
  manager.disable();
  const result = await runInScope({ executionId: 'after-shutdown', runnerName: 'r' }, () =>
    manager.with(ROOT_CONTEXT.setValue(KEY, 'ignored'), async () => {
      await tick();
      return { scope: currentScope()?.executionId, active: manager.active() };
    }),
  );
  assert.is(result.scope, 'after-shutdown');
  assert.is(result.active, ROOT_CONTEXT);
});

test.run();
