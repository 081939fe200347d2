/**
 * What an MCP tool call returns to agentkit: the structured content when the server sends it, else the content
 * blocks as text (text blocks joined with newlines; images, audio and resources as a short marker, since the model
 * reads a tool result as text). A result flagged `isError` becomes a ToolError carrying that text.
 */
import { ToolError } from '../tool-error.js';

interface ContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  uri?: string;
  resource?: { uri?: string; text?: string; mimeType?: string };
}

export interface McpCallResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  toolResult?: unknown;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
      return `[image: ${block.mimeType ?? 'unknown'}]`;
    case 'audio':
      return `[audio: ${block.mimeType ?? 'unknown'}]`;
    case 'resource':
      return block.resource?.text ?? `[resource: ${block.resource?.uri ?? 'unknown'}]`;
    case 'resource_link':
      return `[resource: ${block.uri ?? 'unknown'}]`;
    default:
      return `[${block.type}]`;
  }
}

/** The value of a call's result; throws ToolError for an `isError` result, naming the agentkit tool. */
export function callResultValue(toolName: string, result: McpCallResult): unknown {
  const text = (result.content ?? []).map(blockText).join('\n');
  if (result.isError) throw new ToolError('tool_execution_error', `tool '${toolName}': the MCP server reported an error: ${text || '(no details)'}`);
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (result.content === undefined && result.toolResult !== undefined) return result.toolResult;
  return text;
}
