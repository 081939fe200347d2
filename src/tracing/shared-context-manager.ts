/**
 * An OpenTelemetry context manager that keeps the active context in the shared frame storage (./context-frames.ts),
 * beside the execution scope, instead of in an AsyncLocalStorage of its own: one storage fewer copied onto every
 * promise (ADR 0048). It behaves as `AsyncLocalStorageContextManager`, which it extends for `bind` (functions
 * and event emitters run through `with`):
 *
 * - `with(context, fn)` runs `fn` in a frame with that context and the enclosing frame's scope;
 * - `active()` is the innermost frame's context, the root context outside any;
 * - `attach(context)` enters it for the rest of the current async chain, and its token's `dispose()` restores the
 *   frame it replaced;
 * - `disable()` stops this manager only (`active()` answers the root context, `with` only calls `fn`): the storage is
 *   shared with the execution scope, which must go on working after tracing shuts down.
 */
import { ROOT_CONTEXT, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { contextFrames, runWithContext } from './context-frames.js';

export class SharedContextManager extends AsyncLocalStorageContextManager {
  #enabled = false;

  override active(): Context {
    if (!this.#enabled) return ROOT_CONTEXT;
    return contextFrames.getStore()?.otel ?? ROOT_CONTEXT;
  }

  override with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    const callback = thisArg == null ? fn : (fn.bind(thisArg) as F);
    if (!this.#enabled) return callback(...args);
    return runWithContext(context, callback, ...args);
  }

  override attach(context: Context): { dispose(): void } {
    const previous = contextFrames.getStore();
    if (!this.#enabled) return { dispose() {} };
    contextFrames.enterWith({ scope: previous?.scope, otel: context });
    let disposed = false;
    return {
      dispose() {
        if (disposed) return;
        disposed = true;
        // Back to the frame it replaced (an empty one when there was none: enterWith cannot leave a frame).
        contextFrames.enterWith(previous ?? { scope: undefined, otel: undefined });
      },
    };
  }

  override enable(): this {
    this.#enabled = true;
    return this;
  }

  override disable(): this {
    this.#enabled = false;
    return this;
  }
}
