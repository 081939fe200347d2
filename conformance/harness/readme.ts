/** Reading the README's runnable blocks, for scenarios that run them as written. */

/** The lines of the `nth` (from 0) fenced bash block after `heading` (comments and blank lines dropped, `\` joined). */
export function bashBlock(readme: string, heading: RegExp, nth = 0): string[] {
  const at = heading.exec(readme);
  if (!at) throw new Error(`README has no heading matching ${heading}`);
  const block = [...readme.slice(at.index).matchAll(/```bash\n([\s\S]*?)```/g)][nth]?.[1];
  if (!block) throw new Error(`README has no bash block after ${heading}`);
  return block
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
