/**
 * A Server-Sent Events response whose every event is a contract event: one `data: <json>` frame per event, preceded
 * by an `event: <type>` line when the stream names its events (the served agent's do, so an EventSource's named
 * listeners fire; docs/adr/0056), never an `id:` field (no stream can be resumed from an id).
 * Each event is validated against its generated schema before it is written
 * (express-openapi-validator does not see `res.write`), writes respect backpressure, and a client that went away stops
 * the writing only (the work producing events decides for itself whether to go on).
 *
 * The served agent's `/run/stream` and the UI's rerun route both stream through it, each with its own event schema.
 */
import type { Response } from 'express';

/** The part of a generated component validator this needs. */
export interface EventChecker<E> {
  Check(value: unknown): value is E;
  Errors(value: unknown): [boolean, ReadonlyArray<{ instancePath: string; message: string }>];
}

export class ContractSseStream<E> {
  private closed = false;

  /**
   * Send the status and headers at once. `what` names the events in the error thrown for one off the contract;
   * `cacheControl` is the response's Cache-Control (the UI keeps its private data out of every cache: `no-store`).
   */
  constructor(
    private readonly res: Response,
    private readonly check: EventChecker<E>,
    private readonly what: string,
    cacheControl = 'no-cache, no-transform',
    private readonly named = false,
  ) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', cacheControl);
    // No `Connection` header of our own: Node answers `close` to a client that asked for it, keep-alive otherwise.
    // Reverse proxies (nginx) buffer responses unless told not to; events must arrive as they happen.
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    res.on('close', () => {
      this.closed = true;
    });
  }

  /** Whether the client is gone. */
  get isClosed(): boolean {
    return this.closed || this.res.destroyed;
  }

  /** Validate and write one event; throws when the event is not a contract event (a bug of the caller). */
  async send(event: E): Promise<void> {
    if (!this.check.Check(event)) {
      const [, errors] = this.check.Errors(event);
      throw new Error(`refusing to stream ${this.what} off the contract: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
    }
    if (this.isClosed) return;
    // The event's `type` is one of the contract's literals (checked above): no newline can reach the `event:` line.
    const name = this.named ? `event: ${(event as { type: string }).type}\n` : '';
    if (!this.res.write(`${name}data: ${JSON.stringify(event)}\n\n`)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.once('drain', done);
        this.res.once('close', done);
      });
    }
  }

  /** End the response. */
  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}
