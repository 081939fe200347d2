/**
 * Chunking by structure, then size, with real overlap. A document is first cut into sections (Markdown headings, or
 * the pages of a PDF); no chunk crosses a section. Inside a section, paragraphs are packed into chunks of at most
 * `chunkSize` characters of new text; a paragraph longer than that is cut at sentences, then words, then anywhere.
 * Every chunk after a section's first also starts with up to `overlap` characters that end the previous chunk
 * (snapped to a word start), so text cut at a boundary is searchable whole in one of them. Every chunk keeps its
 * offsets in the document's text, its heading path and its page.
 */

export interface ChunkingOptions {
  /** Most characters of new text in one chunk (default 1000). */
  chunkSize?: number;
  /** Characters repeated from the end of the previous chunk of the same section (default 150; less than chunkSize). */
  overlap?: number;
}

/** A section of a document: where it is, the heading path above it (`Guide > Install`), its page. */
export interface Section {
  start: number;
  end: number;
  heading: string | null;
  page: number | null;
}

export interface Chunk {
  /** Position in the document, from 0. */
  ordinal: number;
  content: string;
  /** Offsets of `content` in the document's text: `text.slice(start, end) === content`. */
  start: number;
  end: number;
  heading: string | null;
  page: number | null;
}

export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_OVERLAP = 150;

interface Span {
  start: number;
  end: number;
}

/** Cut `text` into chunks within `sections` (default: one section, the whole text). */
export function chunkText(
  text: string,
  sections: readonly Section[] = [{ start: 0, end: text.length, heading: null, page: null }],
  options: ChunkingOptions = {},
): Chunk[] {
  const size = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? DEFAULT_OVERLAP;
  if (!(Number.isInteger(size) && size >= 50)) throw new RangeError(`chunkSize must be a whole number of at least 50, got ${size}`);
  if (!(Number.isInteger(overlap) && overlap >= 0 && overlap < size))
    throw new RangeError(`overlap must be a whole number from 0 to chunkSize - 1, got ${overlap}`);
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const units = splitUnits(text, trim(text, section), size);
    let previous: Span | null = null;
    for (const span of pack(units, size)) {
      const start: number = previous ? overlapStart(text, previous, span.start, overlap) : span.start;
      chunks.push({ ordinal: chunks.length, content: text.slice(start, span.end), start, end: span.end, heading: section.heading, page: section.page });
      previous = span;
    }
  }
  return chunks;
}

/** Sections of a Markdown text: one per heading (ATX `#` headings outside fenced code), with the heading path. */
export function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let fence: string | null = null;
  let sectionStart = 0;
  let heading: string | null = null;
  let offset = 0;
  for (const line of text.split('\n')) {
    const fenceMatch = /^ {0,3}(```|~~~)/.exec(line);
    if (fenceMatch) fence = fence === null ? fenceMatch[1]! : fence === fenceMatch[1] ? null : fence;
    const match = fence === null && !fenceMatch ? /^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$/.exec(line) : null;
    if (match) {
      if (offset > sectionStart) sections.push({ start: sectionStart, end: offset, heading, page: null });
      const level = match[1]!.length;
      path.length = level - 1;
      path[level - 1] = match[2]!.trim();
      heading = path.filter(Boolean).join(' > ');
      sectionStart = offset;
    }
    offset += line.length + 1;
  }
  if (text.length > sectionStart) sections.push({ start: sectionStart, end: text.length, heading, page: null });
  return sections;
}

/** A section without leading and trailing whitespace. */
function trim(text: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return { start, end };
}

/** Paragraphs of a section; any longer than `size` cut into sentences, words, then fixed pieces. */
function splitUnits(text: string, section: Span, size: number): Span[] {
  if (section.end <= section.start) return [];
  const paragraphs = splitBy(text, section, /\n[ \t]*\n\s*/g);
  return paragraphs.flatMap((p) => fit(text, p, size, [/(?<=[.!?])\s+/g, /\s+/g]));
}

function fit(text: string, span: Span, size: number, separators: RegExp[]): Span[] {
  if (span.end - span.start <= size) return [span];
  const [separator, ...rest] = separators;
  if (!separator) {
    const pieces: Span[] = [];
    for (let at = span.start; at < span.end; at += size) pieces.push({ start: at, end: Math.min(span.end, at + size) });
    return pieces;
  }
  const parts = splitBy(text, span, separator);
  if (parts.length === 1) return fit(text, span, size, rest);
  return parts.flatMap((p) => fit(text, p, size, rest));
}

/** The non-empty pieces of `span` between matches of `separator` (a global regex). */
function splitBy(text: string, span: Span, separator: RegExp): Span[] {
  const pieces: Span[] = [];
  const slice = text.slice(span.start, span.end);
  let last = 0;
  for (const match of slice.matchAll(separator)) {
    if (match.index! > last) pieces.push({ start: span.start + last, end: span.start + match.index! });
    last = match.index! + match[0].length;
  }
  if (last < slice.length) pieces.push({ start: span.start + last, end: span.end });
  return pieces;
}

/** Greedily join consecutive units while the joined text stays within `size`. */
function pack(units: Span[], size: number): Span[] {
  const chunks: Span[] = [];
  let current: Span | null = null;
  for (const unit of units) {
    if (current && unit.end - current.start <= size) current.end = unit.end;
    else {
      if (current) chunks.push(current);
      current = { ...unit };
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/** Where a chunk starting at `start` begins once up to `overlap` characters of the previous one are carried in. */
function overlapStart(text: string, previous: Span, start: number, overlap: number): number {
  if (overlap === 0) return start;
  let at = Math.max(previous.start + 1, previous.end - overlap);
  // Snap forward to the start of a word so the carried text does not begin mid-word.
  if (at > 0 && /\S/.test(text[at - 1]!)) {
    while (at < previous.end && /\S/.test(text[at]!)) at++;
  }
  while (at < previous.end && /\s/.test(text[at]!)) at++;
  return at < previous.end ? at : start;
}
