import { AgentkitError } from '../errors.js';

/** The store was written by a newer agentkit (its schema version is above the one this version knows). */
export class StoreVersionError extends AgentkitError {
  constructor(file: string, found: number, supported: number) {
    super('store_version_error', `${file} has schema v${found}, newer than this agentkit supports (v${supported}); upgrade agentkit to open it`);
  }
}

/**
 * The store file cannot be used: the path is a folder, the file is not a SQLite database, a read-only command named
 * a file that does not exist, or the file cannot be created or opened. The message names the path and what was
 * expected there; the CLI prints it as one line and exits 1.
 */
export class StoreOpenError extends AgentkitError {
  readonly path: string;

  constructor(file: string, message: string, options?: ErrorOptions) {
    super('storage_unavailable', message, options);
    this.path = file;
  }
}
