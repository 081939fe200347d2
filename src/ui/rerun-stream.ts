/**
 * The rerun route's event stream: the contract's `RerunEvent`s (`span` per span as it ends, then `done` or `error`),
 * each validated before it is written; a closed client stops nothing but the writing.
 */
import type { Response } from 'express';
import { validator } from '../../generated/schemas/ui.js';
import type { components } from '../../generated/types/ui.js';
import { ContractSseStream } from '../http/sse-stream.js';

export type RerunEvent = components['schemas']['RerunEvent'];

export class RerunStream extends ContractSseStream<RerunEvent> {
  constructor(res: Response) {
    super(res, validator('RerunEvent'), 'a rerun event', 'no-store, no-transform');
  }
}
