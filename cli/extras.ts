/**
 * Optional extras: features whose upstream package may be absent (installed with `--omit=optional`). An extra is
 * listed by `agentkit version` only when its package actually imports.
 */
export interface Extra {
  /** Name shown by `agentkit version`. */
  readonly name: string;
  /** Module imported to prove the extra works. */
  readonly module: string;
  /** What it enables. */
  readonly enables: string;
}

export const EXTRAS: readonly Extra[] = [
  { name: 'postgres', module: 'pg', enables: 'PostgresCheckpointer and setup-checkpointer --backend postgres' },
  { name: 'mcp-server', module: '@modelcontextprotocol/sdk/server/mcp.js', enables: 'agentkit mcp serve' },
  { name: 'otel-export', module: '@opentelemetry/exporter-trace-otlp-http', enables: 'OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set' },
];

/** Names of the extras whose package imports, in table order. */
export async function installedExtras(extras: readonly Extra[] = EXTRAS): Promise<string[]> {
  const results = await Promise.all(
    extras.map(async (extra) => {
      try {
        await import(extra.module);
        return extra.name;
      } catch {
        return null;
      }
    }),
  );
  return results.filter((name): name is string => name !== null);
}
