/**
 * Prompt templates: `{{name}}` is a variable, `{{@name}}` includes a fragment (a shared piece of text that may itself
 * use variables and fragments). Whitespace inside the braces is allowed (`{{ name }}`). Fragments are expanded first,
 * then variables are substituted in one pass, so a variable's value is never itself expanded.
 */
import { PromptError } from './errors.js';

const PLACEHOLDER = /\{\{\s*(@?)([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
/** Fragments may include fragments; deeper nesting than this is treated as a cycle. */
const MAX_FRAGMENT_DEPTH = 16;

/** The fragment names a text includes directly, in order of first use. */
export function fragmentNames(text: string): string[] {
  return unique([...text.matchAll(PLACEHOLDER)].filter((m) => m[1] === '@').map((m) => m[2]!));
}

/** The variable names a text uses, in order of first use. */
export function variableNames(text: string): string[] {
  return unique([...text.matchAll(PLACEHOLDER)].filter((m) => m[1] === '').map((m) => m[2]!));
}

/**
 * Every fragment `template` reaches (directly or through other fragments), looked up with `lookup`. Throws
 * PromptError naming a fragment that does not exist, or a cycle.
 */
export function collectFragments(template: string, lookup: (name: string) => string | undefined): Record<string, string> {
  const found: Record<string, string> = {};
  const visit = (text: string, trail: string[]) => {
    for (const name of fragmentNames(text)) {
      if (trail.includes(name)) throw new PromptError(`fragment '${name}' includes itself (${[...trail, name].join(' -> ')})`);
      if (trail.length >= MAX_FRAGMENT_DEPTH) throw new PromptError(`fragments nest deeper than ${MAX_FRAGMENT_DEPTH} levels at '${name}'`);
      const content = found[name] ?? lookup(name);
      if (content === undefined) throw new PromptError(`fragment '${name}' is not registered`);
      found[name] = content;
      visit(content, [...trail, name]);
    }
  };
  visit(template, []);
  return found;
}

/** `template` with every fragment include replaced by its content, recursively. */
export function expandFragments(template: string, fragments: Readonly<Record<string, string>>, depth = 0): string {
  return template.replace(PLACEHOLDER, (whole: string, at: string, name: string) => {
    if (at !== '@') return whole;
    const content = fragments[name];
    if (content === undefined) throw new PromptError(`fragment '${name}' is not registered`);
    if (depth >= MAX_FRAGMENT_DEPTH) throw new PromptError(`fragments nest deeper than ${MAX_FRAGMENT_DEPTH} levels at '${name}'`);
    return expandFragments(content, fragments, depth + 1);
  });
}

/**
 * Substitute variables in an already expanded text. Values are converted with String(); objects as JSON. Throws
 * PromptError naming every missing variable (`what` says whose, e.g. "prompt 'support' v3").
 */
export function substitute(text: string, vars: Readonly<Record<string, unknown>>, what: string): string {
  const missing = variableNames(text).filter((name) => vars[name] === undefined || vars[name] === null);
  if (missing.length > 0) {
    const list = missing.map((m) => `'${m}'`).join(', ');
    throw new PromptError(`${what}: missing variable${missing.length > 1 ? 's' : ''} ${list}`);
  }
  return text.replace(PLACEHOLDER, (whole: string, at: string, name: string) => (at === '@' ? whole : display(vars[name])));
}

function display(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
