/** The text diff of two prompt versions: a unified diff of their templates, or a note that they are the same. */
import { createTwoFilesPatch } from 'diff';
import type { PromptVersion } from './prompt-version.js';

/** The line printed under the headers when two versions have the same template. */
export const NO_TEMPLATE_CHANGES = '(no template changes)';

/**
 * A unified diff from `from` to `to` with headers `--- <name> v<a>` / `+++ <name> v<b>` and three lines of context;
 * `(no template changes)` under the headers when the templates are equal. Ends with a newline.
 */
export function diffVersions(from: PromptVersion, to: PromptVersion): string {
  const oldHeader = `${from.name} v${from.version}`;
  const newHeader = `${to.name} v${to.version}`;
  if (from.template === to.template) return `--- ${oldHeader}\n+++ ${newHeader}\n${NO_TEMPLATE_CHANGES}\n`;
  const patch = createTwoFilesPatch(oldHeader, newHeader, withNewline(from.template), withNewline(to.template), undefined, undefined, { context: 3 });
  // The library starts with an `Index:`/`===` preamble only for single-file patches; drop anything before `---`.
  return patch.slice(patch.indexOf('--- '));
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
