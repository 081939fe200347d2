import { AgentkitError } from '../errors.js';

/** The store was written by a newer agentkit (its schema version is above the one this version knows). */
export class StoreVersionError extends AgentkitError {
  constructor(file: string, found: number, supported: number) {
    super(
      'store_version_error',
      `${file} has schema v${found}, newer than this agentkit supports (v${supported}); upgrade agentkit to open it`,
    );
  }
}
