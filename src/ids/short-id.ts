/**
 * Short ids (issue 49, docs/adr/0060): a person may name a trace or an execution on the command line by a unique
 * prefix or suffix of at least `MIN_SHORT_ID` characters. The stores answer "which ids start or end with this" through
 * `idFragmentPatterns`; the CLI decides what one, none or several matches mean. HTTP routes keep exact ids.
 */

/** The fewest characters a prefix or suffix must have to be looked up (fewer read as an exact id only). */
export const MIN_SHORT_ID = 8;

/** How many candidates a lookup returns at most: enough to list an ambiguity, never a scan's whole result. */
export const MAX_ID_CANDIDATES = 10;

/** Whether `given` is long enough to be looked up as a prefix or suffix. */
export function isShortIdCandidate(given: string): boolean {
  return given.length >= MIN_SHORT_ID;
}

/**
 * The two LIKE patterns (escape character `\`) matching the ids that start with `fragment` and those that end with
 * it. `%`, `_` and `\` in the fragment match themselves.
 */
export function idFragmentPatterns(fragment: string): { prefix: string; suffix: string } {
  const escaped = fragment.replace(/[\\%_]/g, (c) => `\\${c}`);
  return { prefix: `${escaped}%`, suffix: `%${escaped}` };
}
