/**
 * `agentkit/client`: typed access to a served agent (`agentkit agent serve`), built on the generated OpenAPI
 * types with openapi-fetch. `readRunStreamEvents` reads `POST /run/stream` and yields each event validated against
 * the contract.
 */
export {
  createServedAgentClient,
  readRunStreamEvents,
  StreamEventError,
  type components,
  type paths,
} from '../../generated/clients/served-agent.js';
export type {
  DeltaEvent,
  DoneEvent,
  ErrorEvent,
  HealthResponse,
  PausedEvent,
  RunRequest,
  RunResponse,
  RunStreamEvent,
  ToolCallEvent,
} from '../../generated/types/served-agent.js';
