/** Formatting shared by the pages: durations, relative times, short ids, byte counts. */

/** `812 ms`, `3.4 s`, `2 min 5 s`; `-` for null. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `just now`, `5 min ago`, `3 h ago`, `2 d ago`. */
export function relative(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** The absolute time, shown on hover. */
export function absolute(iso: string): string {
  return new Date(iso).toISOString().replace('T', ' ').replace('Z', ' UTC');
}

/**
 * 8 characters of a long id that tell it apart: the tail of a time-ordered id (a trace id or a UUID v7 starts with a
 * millisecond clock every run of a minute shares), else the head. Either is a fragment the CLI takes (docs/cli.md#ids).
 */
export function shortId(id: string): string {
  if (id.length <= 12) return id;
  return TIME_ORDERED.test(id) ? id.slice(-8) : id.slice(0, 8);
}

/** A 32-hex-character trace id, or a UUID version 7. */
const TIME_ORDERED = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
