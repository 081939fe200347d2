/**
 * Server-Sent Events for `POST /run/stream`: one `data: <json>` frame per event, no `event:` or `id:` fields. Every
 * event is validated against the generated `RunStreamEvent` schema before it is written (express-openapi-validator
 * does not see `res.write`), and writes respect backpressure.
 */
import type { Response } from 'express';
import { validator } from '../../generated/schemas/served-agent.js';
import type { RunStreamEvent } from '../../generated/types/served-agent.js';

export class SseStream {
  private readonly check = validator('RunStreamEvent');
  private closed = false;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-cache, no-transform');
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
  async send(event: RunStreamEvent): Promise<void> {
    if (!this.check.Check(event)) {
      const [, errors] = this.check.Errors(event);
      throw new Error(`refusing to stream an event off the contract: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
    }
    if (this.isClosed) return;
    if (!this.res.write(`data: ${JSON.stringify(event)}\n\n`)) {
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
