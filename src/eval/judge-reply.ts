/** Reading a judge model's answer: the first JSON object in its text (models wrap JSON in prose or code fences). */

/** The first JSON object in `text`; throws Error quoting the start of the text when there is none. */
export function firstJsonObject(text: string, who: string): Record<string, unknown> {
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    for (let end = text.lastIndexOf('}'); end > start; end = text.lastIndexOf('}', end - 1)) {
      try {
        const value: unknown = JSON.parse(text.slice(start, end + 1));
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      } catch {
        // not this span; try a shorter one
      }
    }
  }
  throw new Error(`${who}: the model's answer holds no JSON object (${JSON.stringify(text.slice(0, 80))})`);
}
