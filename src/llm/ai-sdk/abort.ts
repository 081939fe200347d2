/**
 * The run's abort signal over an AI SDK model. The signal goes to the model as `abortSignal`, and provider packages
 * hand it to fetch; but a model is code of any origin, and one that ignores the signal must not keep a cancelled run
 * waiting. So each call and each stream also watches the signal itself, with one listener that is removed when the
 * call or the stream ends, whatever way it ends: nothing stays registered on a signal that outlives the call (a
 * caller's long-lived signal, docs/adr/0001), and no composite signal is made.
 */

/**
 * Start `work` and settle with it, or reject with the signal's reason as soon as the signal aborts (at once if it
 * already has, without starting the work). A result that arrives after the abort is handed to `discard` (a stream to
 * cancel); a failure after it is dropped.
 */
export async function untilAborted<T>(work: () => PromiseLike<T>, signal: AbortSignal | undefined, discard?: (late: T) => unknown): Promise<T> {
  signal?.throwIfAborted();
  // A model whose method throws instead of rejecting is read the same way.
  const running = new Promise<T>((resolve) => resolve(work()));
  if (!signal) return await running;
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
  });
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await Promise.race([running, aborted]);
  } catch (error) {
    if (!signal.aborted) throw error;
    running.then(
      (late) => Promise.resolve(discard?.(late)).catch(() => {}),
      () => {},
    );
    throw signal.reason;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * The parts of `stream`, read under `signal`: an abort cancels the stream (so a pending read ends even when the
 * provider ignores the signal) and the reading rejects with the signal's reason. When the consumer stops early or
 * reading fails, the stream is cancelled, so the provider stops too; the lock is always released.
 */
export async function* partsOf<T>(stream: ReadableStream<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  const reader = stream.getReader();
  const onAbort = () => {
    reader.cancel(signal!.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  let ended = false;
  try {
    for (;;) {
      signal?.throwIfAborted();
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        // A provider that honours the signal fails its stream with an AbortError: the run's reason is what counts.
        signal?.throwIfAborted();
        throw error;
      }
      signal?.throwIfAborted();
      if (chunk.done) {
        ended = true;
        return;
      }
      yield chunk.value;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!ended) reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
