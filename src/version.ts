/**
 * The SDK version (`major.minor.patch`), read once from the package manifest so it cannot drift from what npm
 * installed. Works from src/ (tsx) and from dist/src/ (built).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findManifest(start: string): string {
  let dir = start;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    try {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'agentkit' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`agentkit: package.json not found above ${start}`);
    dir = parent;
  }
}

/** The installed agentkit version, e.g. `1.0.0`. */
export const VERSION: string = findManifest(path.dirname(fileURLToPath(import.meta.url)));
