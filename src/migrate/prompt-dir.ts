/**
 * Importing a legacy `.prompts/` directory, the file layout of the Python SDK's prompt storage:
 *
 *   .prompts/
 *     fragments/<name>.yaml     { name, content }            (shared text included with {{@name}})
 *     <prompt>/prompt.yaml      { slug, description, tags }   (optional)
 *     <prompt>/v<N>.yaml        { version, template, variables, fragments, metadata, created_at, created_by }
 *     <prompt>/aliases.yaml     { production: 2, staging: "3" }
 *
 * Version numbers are kept; a version that is not a whole number ("1.1") gets the next free number, in creation
 * order, and keeps its old name in `metadata.legacy_version`. Aliases become labels. Imported versions are
 * `origin = 'migrated'`, `synced = 1`. Rows already present (same prompt and version, label or fragment) are left as
 * they are. A version whose template includes a fragment found nowhere is skipped with a warning.
 */
import type Database from 'better-sqlite3';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { collectFragments } from '../prompts/template.js';
import { templateVariables } from '../prompts/prompt-version.js';
import { LegacySourceError } from './errors.js';
import { legacyPromptWriter } from '../prompts/store/sqlite-legacy-import.js';

interface LegacyVersion {
  file: string;
  version: string;
  template: string;
  variables?: string[];
  metadata: Record<string, unknown>;
  created_at: string;
  created_by: string | null;
}

/** Import `dir` into `target` (inside a target transaction). Returns counts and warnings. */
export function importPromptDir(dir: string, target: Database.Database, shown: string): { counts: Record<string, number>; warnings: string[] } {
  const warnings: string[] = [];
  const counts = { prompts: 0, versions: 0, versions_present: 0, labels: 0, fragments: 0 };
  const rows = legacyPromptWriter(target);
  const legacyFragments = readFragments(path.join(dir, 'fragments'), shown);
  const now = new Date().toISOString();
  for (const [name, content] of Object.entries(legacyFragments)) if (rows.addFragment(name, content, now)) counts.fragments++;
  const lookupFragment = (name: string) => legacyFragments[name] ?? rows.fragment(name);

  for (const entry of readdirSync(dir).sort()) {
    const promptDir = path.join(dir, entry);
    if (entry === 'fragments' || entry.startsWith('.') || !statSync(promptDir).isDirectory()) continue;
    const header = readYaml(path.join(promptDir, 'prompt.yaml'), shown, true) as
      | { slug?: string; name?: string; description?: string; tags?: unknown }
      | undefined;
    const name = String(header?.slug ?? header?.name ?? entry);
    const versions = readVersions(promptDir, shown);
    if (versions.length === 0) {
      warnings.push(`${shown}/${entry}: no version files (v<N>.yaml), skipped`);
      continue;
    }
    const numbers = numberVersions(versions);
    const head = rows.latestVersion(name);
    const latest = Math.max(head ?? 0, ...numbers.values());
    if (head === undefined) {
      const tags = Array.isArray(header?.tags) ? header.tags.map(String) : [];
      rows.addPrompt(name, String(header?.description ?? ''), tags, latest, versions[0]!.created_at, now);
      counts.prompts++;
    } else if (latest > head) {
      rows.raiseLatest(name, latest, now);
    }
    for (const legacy of versions) {
      const number = numbers.get(legacy)!;
      let fragments: Record<string, string>;
      try {
        fragments = collectFragments(legacy.template, lookupFragment);
      } catch (error) {
        warnings.push(`${shown}/${entry}/${legacy.file}: ${error instanceof Error ? error.message : String(error)}; version skipped`);
        continue;
      }
      const variables = legacy.variables ?? templateVariables(legacy.template, fragments);
      const metadata = String(number) === legacy.version ? legacy.metadata : { ...legacy.metadata, legacy_version: legacy.version };
      const added = rows.addVersion({
        name,
        version: number,
        template: legacy.template,
        variables,
        fragments,
        metadata,
        created_at: legacy.created_at,
        created_by: legacy.created_by,
      });
      if (added) counts.versions++;
      else counts.versions_present++;
    }
    const aliases = readYaml(path.join(promptDir, 'aliases.yaml'), shown, true) as Record<string, unknown> | undefined;
    for (const [label, value] of Object.entries(aliases ?? {})) {
      const legacy = versions.find((v) => v.version === String(value));
      const number = legacy ? numbers.get(legacy) : undefined;
      const present = number !== undefined && rows.hasVersion(name, number);
      if (!present || !/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(label) || label === 'latest') {
        warnings.push(`${shown}/${entry}/aliases.yaml: alias '${label}' -> ${String(value)} not imported (no such version, or not a valid label)`);
        continue;
      }
      if (rows.addLabel(name, label, number, now)) counts.labels++;
    }
  }
  return { counts, warnings };
}

function readFragments(dir: string, shown: string): Record<string, string> {
  const fragments: Record<string, string> = {};
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return fragments;
  }
  for (const file of entries) {
    if (!/\.ya?ml$/.test(file)) continue;
    const doc = readYaml(path.join(dir, file), shown) as { name?: string; content?: unknown } | undefined;
    if (typeof doc?.content !== 'string') throw new LegacySourceError(`${shown}/fragments/${file}: no content`);
    fragments[String(doc.name ?? file.replace(/\.ya?ml$/, ''))] = doc.content;
  }
  return fragments;
}

function readVersions(dir: string, shown: string): LegacyVersion[] {
  const versions: LegacyVersion[] = [];
  for (const file of readdirSync(dir)) {
    const match = /^v(.+)\.ya?ml$/.exec(file);
    if (!match) continue;
    const doc = readYaml(path.join(dir, file), shown) as Record<string, unknown> | undefined;
    if (typeof doc?.template !== 'string') throw new LegacySourceError(`${shown}/${path.basename(dir)}/${file}: no template`);
    versions.push({
      file,
      version: String(doc.version ?? match[1]),
      template: doc.template,
      variables: Array.isArray(doc.variables) ? doc.variables.map(String) : undefined,
      metadata: typeof doc.metadata === 'object' && doc.metadata !== null ? (doc.metadata as Record<string, unknown>) : {},
      created_at: doc.created_at ? new Date(String(doc.created_at)).toISOString() : statSync(path.join(dir, file)).mtime.toISOString(),
      created_by: doc.created_by === undefined || doc.created_by === null ? null : String(doc.created_by),
    });
  }
  return versions.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.version.localeCompare(b.version, undefined, { numeric: true }));
}

/** Whole-number versions keep their number; others take the next free numbers in creation order. */
function numberVersions(versions: LegacyVersion[]): Map<LegacyVersion, number> {
  const numbers = new Map<LegacyVersion, number>();
  const taken = new Set<number>();
  for (const v of versions) {
    if (/^[1-9]\d*$/.test(v.version) && !taken.has(Number(v.version))) {
      numbers.set(v, Number(v.version));
      taken.add(Number(v.version));
    }
  }
  let next = Math.max(0, ...taken) + 1;
  for (const v of versions) if (!numbers.has(v)) numbers.set(v, next++);
  return numbers;
}

function readYaml(file: string, shown: string, optional = false): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (optional && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new LegacySourceError(`${shown}/${path.relative(path.dirname(path.dirname(file)), file)}: cannot read (${(error as Error).message})`);
  }
  try {
    return parse(text);
  } catch (error) {
    throw new LegacySourceError(
      `${shown}/${path.relative(path.dirname(path.dirname(file)), file)}: not valid YAML (${(error as Error).message.split('\n')[0]!.replace(/:$/, '')})`,
    );
  }
}
