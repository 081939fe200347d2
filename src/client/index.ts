/**
 * `agentkit/client`: typed access to a served agent (`agentkit agent serve`), built on the generated OpenAPI types
 * with openapi-fetch. `AgentClient` wraps the routes with bearer auth, abort signals and error values typed per route
 * and status; `createServedAgentClient` is the raw generated client and `readRunStreamEvents` reads `POST /run/stream`,
 * yielding each event validated against the contract.
 */
export { AgentClient, type AgentClientOptions, type CallOptions, type Result, type RunCallOptions } from './agent-client.js';
export {
  type AgentClientError,
  type AgentErrorBody,
  type GetRunError,
  type HealthError,
  type RunError,
  StreamCutError,
  type StreamError,
  type UnexpectedResponseError,
} from './errors.js';
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
  RunState,
  RunStatus,
  RunStreamEvent,
  ToolCallEvent,
} from '../../generated/types/served-agent.js';
