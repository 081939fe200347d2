/**
 * Reading a source file into text and its sections: `.txt` as is (one section), `.md`/`.markdown` by headings, `.pdf`
 * page by page through pdfjs-dist (Mozilla's PDF.js; text only, no rendering, no worker, no network, no eval).
 * Failures are KbFileErrors with one line naming the file and what is wrong with it.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { markdownSections, type Section } from './chunking.js';
import { KbFileError } from './errors.js';

/** File extensions a knowledge base ingests, lower-case. */
export const SUPPORTED_EXTENSIONS = ['.txt', '.md', '.markdown', '.pdf'] as const;

export interface Extracted {
  text: string;
  sections: Section[];
  format: 'text' | 'markdown' | 'pdf';
}

/** Whether a file name has a supported extension. */
export function isSupported(file: string): boolean {
  return (SUPPORTED_EXTENSIONS as readonly string[]).includes(path.extname(file).toLowerCase());
}

/** Extract the text of `bytes` read from `file` (named in errors as `shown`). */
export async function extract(file: string, bytes: Buffer, shown = file): Promise<Extracted> {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.pdf') return extractPdf(bytes, shown);
  if (!isSupported(file)) throw new KbFileError(shown, `unsupported file type '${ext || '(none)'}' (supported: ${SUPPORTED_EXTENSIONS.join(', ')})`);
  const text = decodeUtf8(bytes, shown);
  if (ext === '.txt') return { text, sections: [{ start: 0, end: text.length, heading: null, page: null }], format: 'text' };
  return { text, sections: markdownSections(text), format: 'markdown' };
}

/** Read a file; a missing or unreadable file is a KbFileError. */
export async function readSource(file: string, shown = file): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : error instanceof Error
              ? error.message
              : String(error);
    throw new KbFileError(shown, `cannot read: ${reason}`);
  }
}

function decodeUtf8(bytes: Buffer, shown: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true })
      .decode(bytes)
      .replace(/^\uFEFF/, '')
      .replace(/\r\n?/g, '\n');
  } catch {
    throw new KbFileError(shown, 'not UTF-8 text');
  }
}

async function extractPdf(bytes: Buffer, shown: string): Promise<Extracted> {
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  let document;
  try {
    document = await getDocument({
      data: new Uint8Array(bytes),
      verbosity: VerbosityLevel.ERRORS,
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      stopAtErrors: true,
    }).promise;
  } catch (error) {
    throw new KbFileError(shown, `not a readable PDF (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    let text = '';
    const sections: Section[] = [];
    for (let number = 1; number <= document.numPages; number++) {
      const page = await document.getPage(number);
      const content = await page.getTextContent();
      let pageText = '';
      for (const item of content.items) {
        if (!('str' in item)) continue;
        pageText += item.str;
        if (item.hasEOL) pageText += '\n';
      }
      page.cleanup();
      pageText = pageText.trim();
      if (pageText === '') continue;
      if (text !== '') text += '\n\n';
      sections.push({ start: text.length, end: text.length + pageText.length, heading: null, page: number });
      text += pageText;
    }
    return { text, sections, format: 'pdf' };
  } catch (error) {
    throw new KbFileError(shown, `not a readable PDF (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    await document.destroy();
  }
}
