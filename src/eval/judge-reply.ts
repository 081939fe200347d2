/** Reading a judge model's answer: the first JSON object in its text (models wrap JSON in prose or code fences). */

/** The first JSON object in `text`; throws Error quoting the start of the text when there is none. */
export function firstJsonObject(text: string, who: string): Record<string, unknown> {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    const end = matchingBrace(text, start);
    if (end === -1) continue;
    try {
      const value: unknown = JSON.parse(text.slice(start, end + 1));
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // prose in braces; try the next opening brace
    }
  }
  throw new Error(`${who}: the model's answer holds no JSON object (${JSON.stringify(text.slice(0, 80))})`);
}

/** Index of the brace closing the one at `start` (braces inside JSON strings ignored), or -1. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}
