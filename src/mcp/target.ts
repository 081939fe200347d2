/** What `agentkit mcp serve` needs from a target: one primary tool that runs it, and optionally its own tools. */

/** A tool exposed as-is (`--expose-tools`). */
export interface McpExposedTool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments (`type: object`). */
  readonly inputSchema: { type: 'object'; [key: string]: unknown };
  /** Run the tool; a thrown error becomes an MCP error result. */
  call(args: Record<string, unknown>): Promise<unknown>;
}

export interface McpTarget {
  readonly kind: 'agent' | 'chain' | 'swarm' | 'supervisor';
  readonly name: string;
  /** One line saying what the target does (the primary tool's description). */
  readonly description: string;
  /** Run the target on `input`; resolves with the text answer (a pause is described in text, with its id). */
  run(input: string): Promise<string>;
  /** The target's own tools (Agents only). */
  readonly tools?: readonly McpExposedTool[];
}
