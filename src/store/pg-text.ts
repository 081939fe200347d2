/**
 * NUL in Postgres. JSON allows `\u0000` in strings and SQLite stores it, but Postgres refuses it in `text` and
 * `jsonb` ("unsupported Unicode escape sequence"), so a valid input holding a NUL would fail the run on Postgres
 * only. Strings written to Postgres are therefore escaped with a private-use sentinel and unescaped when read:
 *
 *   U+0000 -> U+E000 '0'        U+E000 -> U+E000 U+E000
 *
 * Exact round trip for every string; text without either character (nearly all) is untouched and costs one scan.
 */

const SENTINEL = '\uE000';
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the character Postgres text refuses, so it is the one to find
const NEEDS_ENCODING = /[\u0000\uE000]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: as above, NUL is the character to encode
const ENCODE = /[\u0000\uE000]/g;
const DECODE = /\uE000([0\uE000])/g;

/** `text` safe for a Postgres `text` or `jsonb` string. */
export function encodePgString(text: string): string {
  return NEEDS_ENCODING.test(text) ? text.replace(ENCODE, (c) => (c === '\u0000' ? `${SENTINEL}0` : `${SENTINEL}${SENTINEL}`)) : text;
}

/** The string `encodePgString` was given. */
export function decodePgString(text: string): string {
  return text.includes(SENTINEL) ? text.replace(DECODE, (_, c: string) => (c === '0' ? '\u0000' : SENTINEL)) : text;
}

/** JSON text for a `jsonb` parameter: `JSON.stringify(value)` with every string (keys too) encoded. */
export function encodePgJsonText(json: string): string {
  // JSON.stringify writes NUL as the escape `\u0000` and U+E000 as itself; only text holding one needs the walk.
  if (!json.includes('\\u0000') && !json.includes(SENTINEL)) return json;
  return JSON.stringify(mapStrings(JSON.parse(json) as unknown, encodePgString));
}

/** A value read from a `jsonb` column with every string (keys too) decoded. Same object when nothing changes. */
export function decodePgJson<T>(value: T): T {
  return mapStrings(value, decodePgString) as T;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = mapStrings(value[i], map);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const mappedKey = map(key);
    const mapped = mapStrings(item, map);
    if (mapped !== item || mappedKey !== key) {
      out ??= { ...(value as Record<string, unknown>) };
      if (mappedKey !== key) delete out[key];
      out[mappedKey] = mapped;
    }
  }
  return out ?? value;
}

/** SQL reading the TIMESTAMPTZ `column` as agentkit's stored time text: UTC ISO-8601 with microseconds and `Z` (store/time.ts). */
export function pgIsoText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
