/**
 * The local Platform server, for trying connected mode and for the conformance suite:
 *
 *   node --import tsx conformance/platform/main.ts --port <p> --api-key <k> [--api-key <k2>]... [--db <path>]
 *     [--forbidden-key <k>] [--max-row-bytes <n>] [--lease-ttl-ms <n>] [--project <slug>]
 *
 * Binds 127.0.0.1 (port 0 picks a free one) and prints the bound URL as the first line on stdout. The store is a
 * SQLite file (`--db`, default `./platform.db`; `:memory:` for none). SIGTERM/SIGINT close it cleanly.
 */
import { parseArgs } from 'node:util';
import { listen, warmUp } from '../../src/http/validated-app.js';
import { createPlatformApp } from './app.js';
import { PlatformStore } from './store.js';

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string', multiple: true },
      'forbidden-key': { type: 'string', multiple: true },
      db: { type: 'string', default: 'platform.db' },
      'max-row-bytes': { type: 'string' },
      'lease-ttl-ms': { type: 'string' },
      project: { type: 'string' },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0-65535, got '${values.port}'`);
const keys = (values['api-key'] ?? []).map((key) => key.trim()).filter(Boolean);
if (keys.length === 0) fail('--api-key <key> is required (repeat it for several keys)');
const maxRowBytes = values['max-row-bytes'] === undefined ? undefined : Number(values['max-row-bytes']);
const leaseTtlMs = values['lease-ttl-ms'] === undefined ? undefined : Number(values['lease-ttl-ms']);
if (leaseTtlMs !== undefined && (!Number.isInteger(leaseTtlMs) || leaseTtlMs < 1)) fail('--lease-ttl-ms must be a positive integer');
if (maxRowBytes !== undefined && (!Number.isInteger(maxRowBytes) || maxRowBytes < 1)) fail('--max-row-bytes must be a positive integer');

const store = new PlatformStore(values.db);
const app = createPlatformApp({
  store,
  apiKeys: keys,
  forbiddenKeys: values['forbidden-key'] ?? [],
  ...(maxRowBytes !== undefined ? { maxRowBytes } : {}),
  ...(leaseTtlMs !== undefined ? { leaseTtlMs } : {}),
  defaultProject: values.project ?? null,
});
const { server, url } = await listen(app, port, values.host);
await warmUp(url);
process.stdout.write(`${url}\n`);

function shutdown(): void {
  server.close(() => {
    store.close();
    process.exit(0);
  });
  server.closeAllConnections();
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
