/** Errors of knowledge bases. */
import { ConfigError } from '../errors.js';

/**
 * One source file could not be ingested (missing, unreadable, unsupported, not UTF-8, a corrupt PDF). `add` reports
 * it per file and goes on with the rest; the message is one line that starts with the file.
 */
export class KbFileError extends ConfigError {
  readonly file: string;

  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.file = file;
  }
}
