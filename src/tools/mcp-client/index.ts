/** Tools of external MCP servers (stdio or Streamable HTTP) as agentkit tools. */
export { mcpTools, type McpTools, type McpToolsOptions, type StdioMcpOptions, type HttpMcpOptions } from './mcp-tools.js';
export { McpTool, DEFAULT_MCP_TIMEOUT_MS } from './mcp-tool.js';
