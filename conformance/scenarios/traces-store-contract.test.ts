/**
 * The trace-store contract (src/tracing/contract), unchanged, on both engines: each case on a fresh SQLite file and a
 * fresh Postgres schema (issue 38: `TraceStore` answers the same from either).
 */
import { traceContractStore, traceStoreContract } from '../../src/tracing/contract/index.js';
import { conformance, type Backend } from '../harness/index.js';

const area = conformance('traces: trace-store contract');

function valueOf(backend: Backend): string {
  if (backend.kind === 'sqlite') return backend.dbPath;
  if (backend.kind === 'postgres') return `${backend.url}${backend.url.includes('?') ? '&' : '?'}schema=${backend.schema}`;
  throw new Error('a trace store needs a backend');
}

for (const contractCase of traceStoreContract) {
  area.scenario(`${contractCase.group}: ${contractCase.name}`, { timeoutMs: 30_000 }, async (t) => {
    const store = traceContractStore(valueOf(t.backend));
    t.defer(() => store.close());
    await contractCase.run(store);
  });
}
area.run();
