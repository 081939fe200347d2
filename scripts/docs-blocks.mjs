/**
 * The docs runner's reading half (docs/adr/0061-docs-that-run.md): finds the shell and TypeScript blocks of a
 * Markdown file, reads the `<!-- docs-runner: ... -->` marker before each, and checks the share of blocks marked not
 * runnable. Pure functions over text; scripts/docs-runner.mjs runs what they return.
 *
 * Counted blocks: fences whose info string is `sh`, `bash` or `shell` (kind 'shell') or `ts` or `typescript`
 * (kind 'ts'). Every other fence (`console`, `text`, `json`, ...) is not counted and never run.
 *
 * A marker is one HTML comment on the line before the fence (blank lines between are allowed), holding directives
 * separated by `;`:
 *   skip reason="<reason>"    not run; the reason is one of SKIP_REASONS
 *   continue                  run in the previous counted block's directory (files it wrote are there)
 *   background port=<n>       started and left running (its process group) until its group of blocks ends; the
 *                             next block starts once 127.0.0.1:<n> accepts connections
 *   postgres                  every postgres:// URL in the block names a fresh schema on the test server instead
 *   timeout=<seconds>         this block's limit (default 60)
 *   env <NAME>=<value>        sets a variable (as the reader's shell would have it) for this block and the rest of
 *                             its group; repeatable
 *   file=<name>               a TypeScript block is written to <name> in its directory (a later `continue` block
 *                             imports it from './<name>'), else to a hidden file of its own
 * A marker that is not followed by a counted block, an unknown directive, or a reason outside SKIP_REASONS throws a
 * DocsMarkerError naming the file and line.
 */

/** The only reasons a block may be marked not runnable. */
export const SKIP_REASONS = Object.freeze(['needs a provider key', 'needs a public network', 'shows output only']);

/** The share of counted blocks that may be marked not runnable. */
export const MAX_MARKED_SHARE = 0.15;

const KINDS = { sh: 'shell', bash: 'shell', shell: 'shell', ts: 'ts', typescript: 'ts' };
const MARKER = /^\s*<!--\s*docs-runner:(.*?)-->\s*$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

export class DocsMarkerError extends Error {
  constructor(file, line, message) {
    super(`${file}:${line}: ${message}`);
    this.name = 'DocsMarkerError';
  }
}

/**
 * Parses one marker comment's directives.
 * @param {string} text the comment's text after `docs-runner:`
 * @returns {{ skip?: string, continue?: boolean, background?: number, postgres?: boolean, timeoutSeconds?: number, env?: Record<string, string>, file?: string }}
 * @throws {Error} for an unknown directive, a missing or unknown reason, or a bad number
 */
export function parseMarker(text) {
  const marker = {};
  for (const raw of text.split(';')) {
    const directive = raw.trim();
    if (!directive) continue;
    let match;
    if ((match = /^skip(?:\s+reason="([^"]*)")?$/.exec(directive))) {
      if (match[1] === undefined) throw new Error(`skip needs reason="..." (one of: ${SKIP_REASONS.join(', ')})`);
      if (!SKIP_REASONS.includes(match[1])) throw new Error(`skip reason "${match[1]}" is not allowed (one of: ${SKIP_REASONS.join(', ')})`);
      marker.skip = match[1];
    } else if (directive === 'continue') {
      marker.continue = true;
    } else if ((match = /^background\s+port=(\d+)$/.exec(directive))) {
      marker.background = Number(match[1]);
    } else if (directive === 'postgres') {
      marker.postgres = true;
    } else if ((match = /^timeout=(\d+)$/.exec(directive))) {
      marker.timeoutSeconds = Number(match[1]);
      if (marker.timeoutSeconds < 1) throw new Error('timeout must be at least 1 second');
    } else if ((match = /^env\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)$/.exec(directive))) {
      marker.env = { ...marker.env, [match[1]]: match[2] };
    } else if ((match = /^file=([\w.-]+\.m?ts)$/.exec(directive))) {
      marker.file = match[1];
    } else {
      throw new Error(
        `unknown directive '${directive}' (known: skip reason="...", continue, background port=N, postgres, timeout=N, env NAME=value, file=<name>.ts)`,
      );
    }
  }
  if (marker.skip && Object.keys(marker).length > 1) throw new Error('a skipped block takes no other directive');
  return marker;
}

/**
 * The counted blocks of one Markdown text, in order.
 * @param {string} file the path reported in errors and results
 * @param {string} markdown the file's text
 * @returns {Array<{ file: string, line: number, kind: 'shell' | 'ts', lang: string, code: string, marker: ReturnType<typeof parseMarker> }>}
 *   `line` is the 1-based line of the opening fence
 */
export function extractBlocks(file, markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let pending = null; // { line, marker } of a marker waiting for its block
  let first = true; // no counted block yet in this file (a continue there has nothing to continue)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const markerMatch = MARKER.exec(line);
    if (markerMatch) {
      if (pending) throw new DocsMarkerError(file, pending.line, 'a docs-runner marker not followed by a shell or TypeScript block');
      try {
        pending = { line: i + 1, marker: parseMarker(markerMatch[1]) };
      } catch (error) {
        throw new DocsMarkerError(file, i + 1, error.message);
      }
      continue;
    }
    const fence = FENCE.exec(line);
    if (!fence) {
      if (pending && line.trim() !== '') throw new DocsMarkerError(file, pending.line, 'a docs-runner marker not followed by a shell or TypeScript block');
      continue;
    }
    // A fenced block: find its end (same fence character, at least as long), whatever its language.
    const [, indent, open, lang] = fence;
    let end = i + 1;
    while (end < lines.length && !new RegExp(`^\\s*${open[0] === '`' ? '`' : '~'}{${open.length},}\\s*$`).test(lines[end])) end++;
    const kind = KINDS[lang.toLowerCase()];
    if (kind) {
      const marker = pending?.marker ?? {};
      if (marker.continue && first) throw new DocsMarkerError(file, pending.line, 'continue on the first block of a file: there is no previous block');
      const code = lines
        .slice(i + 1, end)
        .map((text) => (text.startsWith(indent) ? text.slice(indent.length) : text))
        .join('\n');
      if (marker.file && kind !== 'ts') throw new DocsMarkerError(file, pending.line, 'file= names where a TypeScript block is written; this block is shell');
      blocks.push({ file, line: i + 1, kind, lang, code, marker });
      first = false;
    } else if (pending) {
      throw new DocsMarkerError(
        file,
        pending.line,
        `a docs-runner marker before a '${lang || 'plain'}' block (only sh, bash, shell, ts, typescript blocks are run)`,
      );
    }
    pending = null;
    i = end;
  }
  if (pending) throw new DocsMarkerError(file, pending.line, 'a docs-runner marker not followed by a shell or TypeScript block');
  return blocks;
}

/**
 * The counts the runner prints, and whether the marked share is within MAX_MARKED_SHARE.
 * @param {Array<{ marker: { skip?: string } }>} blocks every counted block
 * @returns {{ run: number, marked: number, reasons: Record<string, number>, withinLimit: boolean, line: string }}
 */
export function summarize(blocks) {
  const reasons = {};
  let marked = 0;
  for (const block of blocks) {
    if (!block.marker.skip) continue;
    marked++;
    reasons[block.marker.skip] = (reasons[block.marker.skip] ?? 0) + 1;
  }
  const run = blocks.length - marked;
  const withinLimit = marked <= MAX_MARKED_SHARE * blocks.length;
  const listed = Object.entries(reasons)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return { run, marked, reasons, withinLimit, line: `${run} blocks run, ${marked} marked (reasons: ${listed || 'none'})` };
}
