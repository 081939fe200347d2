/**
 * An async queue between a producer that pushes (the run) and a consumer that iterates (`agent.stream()`'s caller).
 * Ends cleanly, or with an error the iterator throws after the events queued before it. When the consumer stops
 * early, `onStop` runs (the run is aborted).
 */
export class EventQueue<T> {
  private readonly items: T[] = [];
  private waiting: (() => void) | undefined;
  private finished = false;
  private failure: { error: unknown } | undefined;

  constructor(private readonly onStop: () => void) {}

  push(item: T): void {
    if (this.finished) return;
    this.items.push(item);
    this.wake();
  }

  end(): void {
    this.finished = true;
    this.wake();
  }

  fail(error: unknown): void {
    if (this.finished) return;
    this.failure = { error };
    this.finished = true;
    this.wake();
  }

  private wake(): void {
    const resolve = this.waiting;
    this.waiting = undefined;
    resolve?.();
  }

  async *iterate(): AsyncGenerator<T> {
    let completed = false;
    try {
      for (;;) {
        while (this.items.length > 0) yield this.items.shift()!;
        if (this.finished) {
          completed = true;
          if (this.failure) throw this.failure.error;
          return;
        }
        await new Promise<void>((resolve) => (this.waiting = resolve));
      }
    } finally {
      if (!completed) {
        this.finished = true;
        this.onStop();
      }
    }
  }
}
