/**
 * Time limits for tests. uvu has none, and a promise that never settles makes it exit 0 and skip the rest, so every
 * async test runs behind one of these. The timer stays referenced on purpose: it keeps the process alive until the
 * limit fires, turning a hang into a failure that names the test.
 */

/** Raised when the limit passes before the work settles. */
export class TimeoutError extends Error {
  constructor(label: string, ms: number) {
    super(`${label} did not finish within ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/** Run `work` and reject with TimeoutError if it has not settled after `ms` milliseconds. */
export async function withTimeout<T>(work: () => Promise<T> | T, ms: number, label = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(label, ms)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(work), limit]);
  } finally {
    clearTimeout(timer);
  }
}
