/**
 * The store a command names with a flag (`--db`, `--db-path`): a file path or a `postgres://...?schema=` URL. A read-only command must not answer "nothing found"
 * for a mistyped path: a named file that does not exist, or a folder, is refused with one line naming the path and
 * what was expected (exit 1). The default store (no flag) may be missing: a fresh project has none yet.
 */
import path from 'node:path';
import { isStoreUrl } from '../src/config/store-value.js';
import { checkStorePath } from '../src/store/open.js';

/**
 * The store a flag names: a `postgres://` URL as given (never resolved as a path), else the file's absolute path;
 * undefined when the flag was not given. `readOnly` refuses a missing file.
 */
export function namedStore(cwd: string, value: string | undefined, options: { readOnly: boolean }): string | undefined {
  if (value === undefined) return undefined;
  if (isStoreUrl(value)) return value;
  const file = path.resolve(cwd, value);
  checkStorePath(file, options.readOnly);
  return file;
}
