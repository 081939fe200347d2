/**
 * `agentkit store migrate [--db <path|url>]` (issue 38): apply every pending migration of the store, for deployments
 * whose application role may not run DDL (an operator runs this once with an owner role; the replicas then find the
 * schema current). SQLite: the local store's list. Postgres: the checkpointer's list, the trace tables' own list and
 * the prompt tables' own list (ADR 0062), each under its advisory lock, so it is safe beside running replicas.
 */
import { Command, Option } from 'clipanion';
import { localStore } from '../../src/config/paths.js';
import { parseStoreValue, storeLabel } from '../../src/config/store-value.js';
import { PostgresCheckpointer } from '../../src/durability/postgres-checkpointer.js';
import { SQLiteCheckpointer } from '../../src/durability/sqlite-checkpointer.js';
import { openStore } from '../../src/store/store-handle.js';
import { migrateTraceSchema } from '../../src/tracing/pg-schema.js';
import { migratePromptSchema } from '../../src/prompts/store/pg-schema.js';
import { PG_FORK_FAMILY } from '../../src/forks/pg-fork-store.js';
import { PG_EVAL_FAMILY } from '../../src/eval/pg-eval-store.js';
import { PG_KB_FAMILY } from '../../src/kb/pg-kb-store.js';
import { PG_PLATFORM_FAMILY } from '../../src/platform/server/pg-schema.js';
import { migrateFamily } from '../../src/store/pg-family-schema.js';
import { AgentkitCommand } from '../base.js';

export class StoreMigrateCommand extends AgentkitCommand {
  static override paths = [['store', 'migrate']];

  static override usage = Command.Usage({
    category: 'Stores',
    description: 'Apply every pending migration of the store (for application roles without DDL rights)',
    details: [
      'Migrates the store `--db` names (a SQLite file or a `postgres://user@host:port/db?schema=<name>` URL; default `AGENTKIT_LOCAL_DB`, else `./.agentkit/local.db`) to this agentkit version: on Postgres the durability tables, the trace tables, the prompt tables, the UI fork tables, the eval tables, the knowledge-base tables and the Platform tables (`agentkit platform serve`), each list in one transaction under its own advisory lock (safe while replicas run). Idempotent: a current store is left as it is.',
      'Run it with a role that may create tables; the application role then needs only SELECT, INSERT, UPDATE and DELETE on the schema. Prints each list and its version (`--json`: `{ store, engine, checkpoints, traces, prompts, forks, evals, kb, platform }`; `traces`, `prompts`, `forks`, `evals`, `kb` and `platform` are null for a SQLite store, whose one list holds every table). A store migrated by a newer agentkit is refused with one line naming both versions. A password in the URL is never printed.',
    ].join('\n\n'),
    examples: [
      ['Migrate a Postgres store before rolling out', "PGPASSWORD=... $0 store migrate --db 'postgres://owner@db:5432/prod?schema=agentkit'"],
      ['Migrate the local store', '$0 store migrate'],
    ],
  });

  db = Option.String('--db', { description: 'Store: a file path or a postgres://...?schema= URL (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)' });
  json = Option.Boolean('--json', false, { description: 'Print { store, engine, checkpoints, traces, prompts, forks, evals, kb, platform } as JSON' });

  async run(): Promise<void> {
    const { env, cwd } = this.context;
    const ref = this.db !== undefined ? parseStoreValue(this.db, cwd) : localStore({ env, cwd });
    const label = storeLabel(ref);
    let checkpoints: number;
    let traces: number | null = null;
    let prompts: number | null = null;
    let forks: number | null = null;
    let evals: number | null = null;
    let kb: number | null = null;
    let platform: number | null = null;
    if (ref.engine === 'sqlite') {
      const checkpointer = new SQLiteCheckpointer(ref.path);
      try {
        await checkpointer.setup();
        checkpoints = await checkpointer.schemaVersion();
      } finally {
        await checkpointer.close();
      }
    } else {
      const store = openStore(ref, { min: 0, max: 2 });
      const checkpointer = new PostgresCheckpointer(store, { minPoolSize: 0, maxPoolSize: 2 });
      try {
        await checkpointer.setup();
        checkpoints = await checkpointer.schemaVersion();
        traces = await migrateTraceSchema(store.pool(), ref.schema);
        prompts = await migratePromptSchema(store.pool(), ref.schema);
        forks = await migrateFamily(store.pool(), ref.schema, PG_FORK_FAMILY);
        evals = await migrateFamily(store.pool(), ref.schema, PG_EVAL_FAMILY);
        kb = await migrateFamily(store.pool(), ref.schema, PG_KB_FAMILY);
        platform = await migrateFamily(store.pool(), ref.schema, PG_PLATFORM_FAMILY);
      } finally {
        await checkpointer.close();
        await store.close();
      }
    }
    if (this.json) return this.out(JSON.stringify({ store: label, engine: ref.engine, checkpoints, traces, prompts, forks, evals, kb, platform }));
    this.out(
      ref.engine === 'sqlite'
        ? `store ${label} is current: local store schema v${checkpoints}`
        : `store ${label} is current: checkpoints v${checkpoints}, traces v${traces}, prompts v${prompts}, forks v${forks}, evals v${evals}, kb v${kb}, platform v${platform}`,
    );
  }
}
