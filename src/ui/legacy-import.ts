/**
 * The legacy import `agentkit ui` runs when it starts: the same `importLegacyStores` as `agentkit migrate` (the old
 * trace store, checkpoint store and prompt directory into local.db), idempotent because each source is recorded once
 * imported. The UI starts whatever the outcome: a failed source is reported in one line and left alone.
 */
import type { Where } from '../config/paths.js';
import { importLegacyStores, type SourceReport } from '../migrate/import-legacy.js';

/** Import what has not been imported yet; returns one line per source imported or failed, and per warning. */
export async function importLegacyOnStart(options: Where & { dbPath: string }): Promise<string[]> {
  let sources: SourceReport[];
  try {
    sources = (await importLegacyStores({ env: options.env, cwd: options.cwd, dbPath: options.dbPath })).sources;
  } catch (error) {
    return [`legacy import skipped: ${error instanceof Error ? error.message : String(error)}`];
  }
  const lines: string[] = [];
  for (const source of sources) {
    if (source.status === 'imported') lines.push(`imported legacy ${source.kind} from ${source.source}: ${counted(source.counts)}`);
    if (source.status === 'failed')
      lines.push(`legacy ${source.kind} at ${source.source} not imported: ${source.error ?? 'failed'} (run agentkit migrate for details)`);
    for (const warning of source.warnings) lines.push(`warning: ${warning}`);
  }
  return lines;
}

/** `3 spans, 1 pending interrupts` from a source's counts (rows already present or invalid left out). */
function counted(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([name]) => !name.endsWith('_present') && !name.endsWith('_invalid'))
    .map(([name, value]) => `${value} ${name.replace(/_/g, ' ')}`);
  return parts.join(', ') || 'nothing new';
}
