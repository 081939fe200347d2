import { absolute, relative } from '../format.js';

/** A relative time with the absolute UTC time on hover. */
export function Time({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={absolute(iso)}>
      {relative(iso)}
    </time>
  );
}
