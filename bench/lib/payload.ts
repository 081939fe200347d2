/** Payloads the growth benchmarks feed their runs. */

const KB = 1024;

/** 1 KB of text unique to step `i` (no two chunks alike, so nothing compresses across steps). */
export function chunk(i: number): string {
  const seed = `${i}:`;
  let text = '';
  let x = i * 2654435761 + 1;
  while (text.length < KB - seed.length) {
    x = (x * 1103515245 + 12345) % 2147483648;
    text += x.toString(36);
  }
  return seed + text.slice(0, KB - seed.length);
}
