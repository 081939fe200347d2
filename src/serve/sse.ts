/**
 * Server-Sent Events for `POST /run/stream`: the contract's `RunStreamEvent`s, each validated before it is written,
 * each named by an `event:` line equal to its `type` (docs/adr/0056).
 */
import type { Response } from 'express';
import { validator } from '../../generated/schemas/served-agent.js';
import type { RunStreamEvent } from '../../generated/types/served-agent.js';
import { ContractSseStream } from '../http/sse-stream.js';

export class SseStream extends ContractSseStream<RunStreamEvent> {
  constructor(res: Response) {
    super(res, validator('RunStreamEvent'), 'an event', undefined, true);
  }
}
