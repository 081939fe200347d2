/** Rows the Platform store contract cases write. */
import type { IngestedSpan } from '../ingested-span.js';
import type { CheckpointInput, ClaimInput, StoredApiKey } from '../store-types.js';

export function checkpoint(id: string, executionId: string, createdAt: string, extra: Partial<CheckpointInput> = {}): CheckpointInput {
  return { checkpoint_id: id, execution_id: executionId, created_at: createdAt, step_type: 'node', metadata: { agent_path: null }, ...extra };
}

export function claim(executionId: string, claimId: string, host = 'host-a'): ClaimInput {
  return {
    execution_id: executionId,
    pending_created_at: '2026-01-01T00:00:00.000000Z',
    claim_id: claimId,
    host,
    decision: { resume: { approved: true }, decided_by: { principal: 'ana', surface: 'cli' }, reason: null },
  };
}

export function span(traceId: string, spanId: string, parent: string | null, start: string, attributes: IngestedSpan['attributes'] = {}): IngestedSpan {
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: parent,
    name: `span-${spanId.slice(0, 4)}`,
    kind: 1,
    start_time: start,
    end_time: null,
    status: 'OK',
    status_message: null,
    attributes,
    events: [{ name: 'e', time: start, attributes: { n: 1 } }],
    resource: { 'service.name': 'svc' },
    scope: 'tests',
  };
}

export function apiKey(id: string, project: string, prefix = `akp_${id.slice(-8)}`): StoredApiKey {
  return { id, prefix, project, scopes: ['checkpoints:read'], digest: 'ab'.repeat(32), created_at: `2026-01-01T00:00:0${id.slice(-1)}.000Z`, revoked_at: null };
}

export const TRACE_A = '0af7651916cd43dd8448eb211c80319c';
export const TRACE_B = '4bf92f3577b34da6a3ce929d0e0e4736';
