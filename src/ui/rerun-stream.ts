/**
 * The rerun route's event stream: `data: <json>` frames of the contract's `RerunEvent` (`span` per span as it ends,
 * then `done` or `error`). Every event is validated against the generated schema before it is written
 * (express-openapi-validator does not see `res.write`); writes respect backpressure; a closed client stops nothing
 * but the writing.
 */
import type { Response } from 'express';
import { validator } from '../../generated/schemas/ui.js';
import type { components } from '../../generated/types/ui.js';

export type RerunEvent = components['schemas']['RerunEvent'];

export class RerunStream {
  private readonly check = validator('RerunEvent');
  private closed = false;

  constructor(private readonly res: Response) {
    res.status(200);
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store, no-transform');
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

  /** Validate and write one event; throws for an event off the contract (a bug of the caller). */
  async send(event: RerunEvent): Promise<void> {
    if (!this.check.Check(event)) {
      const [, errors] = this.check.Errors(event);
      throw new Error(`refusing to stream a rerun event off the contract: ${errors.map((e) => `${e.instancePath} ${e.message}`).join('; ')}`);
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

  end(): void {
    if (!this.res.writableEnded) this.res.end();
  }
}
