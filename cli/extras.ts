/**
 * Optional extras: features whose upstream package may be absent (installed with `--omit=optional`). An extra is
 * listed by `agentkit version` when its package is installed: its entry point resolves from agentkit (with the import
 * conditions) to a file that exists. It is not imported: importing pg, the MCP SDK and the OTLP exporter took longer
 * than the rest of `agentkit version` put together (ADR 0047).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface Extra {
  /** Name shown by `agentkit version`. */
  readonly name: string;
  /** Module resolved to prove the extra is installed. */
  readonly module: string;
  /** What it enables. */
  readonly enables: string;
}

export const EXTRAS: readonly Extra[] = [
  { name: 'postgres', module: 'pg', enables: 'PostgresCheckpointer and setup-checkpointer --backend postgres' },
  { name: 'mcp-server', module: '@modelcontextprotocol/sdk/server/mcp.js', enables: 'agentkit mcp serve' },
  { name: 'otel-export', module: '@opentelemetry/exporter-trace-otlp-http', enables: 'OTLP export when OTEL_EXPORTER_OTLP_ENDPOINT is set' },
];

/** Names of the extras whose package is installed, in table order. */
export function installedExtras(extras: readonly Extra[] = EXTRAS): string[] {
  return extras.filter((extra) => isInstalled(extra.module)).map((extra) => extra.name);
}

function isInstalled(specifier: string): boolean {
  try {
    const url = import.meta.resolve(specifier);
    return !url.startsWith('file:') || existsSync(fileURLToPath(url));
  } catch {
    return false;
  }
}
