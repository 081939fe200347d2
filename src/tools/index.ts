/** Tools: function tools with validated arguments, replay classes, and the registry replay rebinds through. */
export { Tool, type ToolContext, type ToolDict, type ToolOptions } from './tool.js';
export { FunctionTool, tool, type FunctionToolOptions } from './function-tool.js';
export { ToolRegistry, currentToolRegistry, defaultToolRegistry, withToolRegistry } from './registry.js';
export { DEFAULT_REPLAY_CLASS, REPLAY_CLASSES, replayClassOf, type ReplayClass } from './replay-class.js';
export { invokeTool, outputText, type ToolOutcome } from './invoke.js';
export { CONTROL_FLOW, isControlFlowSignal } from './control-flow.js';
export { ToolError, type ToolErrorCode, type ToolErrorOptions } from './tool-error.js';
export {
  RESTTool,
  REST_METHODS,
  loadRestTools,
  restToolFromConfig,
  restToolsFromOpenAPI,
  BODY_MAPPINGS,
  type OpenAPIToolOptions,
  type OpenAPITools,
  type RESTToolOptions,
  type RestMethod,
  type RestToolConfig,
  type RestConfigOverrides,
  type BodyMapping,
} from './rest/index.js';
export { SafeHttpClient, type SafeClientOptions, type SafeRequest, type SafeResponse } from './net/safe-client.js';
export { SsrfGuard, type GuardOptions, type Resolver } from './net/ssrf-guard.js';
export { classifyAddress, type AddressVerdict } from './net/address-policy.js';
export { mcpTools, McpTool, type McpTools, type McpToolsOptions, type StdioMcpOptions, type HttpMcpOptions } from './mcp-client/index.js';
