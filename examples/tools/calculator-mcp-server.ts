/** A tiny MCP server (stdio) with one read-only tool, `multiply`, for examples/tools/rest-and-mcp-agent.ts. */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'calculator', version: '1.0.0' });
server.registerTool(
  'multiply',
  { description: 'Multiply two numbers', inputSchema: { a: z.number(), b: z.number() }, annotations: { readOnlyHint: true } },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a * b) }] }),
);
await server.connect(new StdioServerTransport());
