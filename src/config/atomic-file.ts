/**
 * Replace a file atomically: the text goes to a temporary file beside it (created exclusively, with `mode`), is
 * flushed to disk, then renamed over the target. A crash at any point leaves the old file or the new one, never half
 * of either; a failed write removes its temporary file. Files holding secrets pass mode 0600 (the default).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export function writeFileAtomic(file: string, text: string, options: { mode?: number } = {}): void {
  const mode = options.mode ?? 0o600;
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temporary, 'wx', mode);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    // The umask may have narrowed or (when set oddly) the file may exist with other bits: the mode is exact.
    chmodSync(temporary, mode);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
