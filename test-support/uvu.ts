/**
 * uvu suites with a time limit on every test and hook. Unit tests beside the code and conformance scenarios both
 * register through here: uvu itself has no timeout, and a never-settling promise would end the run early.
 */
import { suite as uvuSuite } from 'uvu';
import { withTimeout } from '../src/testing/timeout.js';

export const DEFAULT_TIMEOUT_MS = 15_000;

type Handler<S> = (context: S) => unknown;

export interface TimedSuite<S extends Record<string, unknown>> {
  (name: string, handler: Handler<S>, timeoutMs?: number): void;
  skip(name: string): void;
  only(name: string, handler: Handler<S>, timeoutMs?: number): void;
  before(handler: Handler<S>): void;
  after(handler: Handler<S>): void;
  beforeEach(handler: Handler<S>): void;
  afterEach(handler: Handler<S>): void;
  run(): void;
}

/** A uvu suite whose tests and hooks each fail after `timeoutMs` (default 15 s) instead of hanging. */
export function suite<S extends Record<string, unknown> = Record<string, unknown>>(
  name: string,
  options: { timeoutMs?: number; state?: S } = {},
): TimedSuite<S> {
  const limit = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const inner = uvuSuite<S>(name, options.state);
  const timed =
    (label: string, handler: Handler<S>, ms = limit) =>
    (context: S) =>
      withTimeout(
        async () => {
          await handler(context);
        },
        ms,
        `${name} > ${label}`,
      );
  const test = ((label: string, handler: Handler<S>, ms?: number) => inner(label, timed(label, handler, ms))) as TimedSuite<S>;
  test.skip = (label) => inner.skip(label);
  test.only = (label, handler, ms) => inner.only(label, timed(label, handler, ms));
  test.before = (handler) => inner.before(timed('before', handler));
  test.after = (handler) => inner.after(timed('after', handler));
  test.beforeEach = (handler) => inner.before.each(timed('before each', handler));
  test.afterEach = (handler) => inner.after.each(timed('after each', handler));
  test.run = () => inner.run();
  return test;
}
