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

/** First 8 characters of a long id. */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
