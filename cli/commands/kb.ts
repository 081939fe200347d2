/**
 * Knowledge base commands: `kb list`, `status`, `add`, `delete`, `clear` (the spec's) and `kb search`. On a SQLite
 * store bases live under `.agentkit/kb/<name>/` beside it unless `--path` names another root; on a Postgres store
 * (`--db` or `AGENTKIT_LOCAL_DB` a URL) they are in the store, and `--path` is refused (exit 2).
 */
import { Command, Option, UsageError } from 'clipanion';
import path from 'node:path';
import * as t from 'typanion';
import { localStore } from '../../src/config/paths.js';
import { parseStoreValue, storeLabel } from '../../src/config/store-value.js';
import { describeEmbedder, KnowledgeBase, kbCatalogOf, listKnowledgeBases, SEARCH_MODES, type AddProgress, type SearchMode } from '../../src/index.js';
import { cutList, cutNotice, parseLimit } from '../list-cut.js';
import { AgentkitCommand } from '../base.js';
import { namedStore } from '../store-path.js';
import { outputWidth, table } from '../table.js';

abstract class KbCommand extends AgentkitCommand {
  root = Option.String('--path', {
    description: 'Directory holding the bases as files (default .agentkit/kb/ beside the local store; not with a Postgres store)',
  });
  db = Option.String('--db', {
    description:
      'Store: a file (bases under kb/ beside it) or a postgres://...?schema=<name> URL (bases in the store) (default AGENTKIT_LOCAL_DB, else ./.agentkit/local.db)',
  });

  /** Where the bases are: `--path`, `--db`, the environment. `--path` with a Postgres store is a usage error. */
  protected where(): { root?: string; dbPath?: string; env: Record<string, string | undefined>; cwd: string } {
    const { env, cwd } = this.context;
    const dbPath = namedStore(cwd, this.db, { readOnly: false });
    const store = dbPath !== undefined ? parseStoreValue(dbPath, cwd) : localStore({ env, cwd });
    if (this.root !== undefined && store.engine === 'postgres')
      throw new UsageError(`--path cannot be used with the Postgres store ${storeLabel(store)}: its knowledge bases are in the store`);
    return { root: this.root === undefined ? undefined : path.resolve(cwd, this.root), dbPath, env, cwd };
  }

  /** Open a base; `create` only for `add`. Closed by `use`. */
  protected async use<T>(name: string, create: boolean, fn: (kb: KnowledgeBase) => Promise<T>): Promise<T> {
    const kb = new KnowledgeBase(name, { ...this.where(), create });
    try {
      await kb.ready();
      return await fn(kb);
    } finally {
      await kb.close();
    }
  }
}

/** `kb list [--path <dir>] [--json]` */
export class KbListCommand extends KbCommand {
  static override paths = [['kb', 'list']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'List knowledge bases',
    details:
      "Lists the bases under the root (`.agentkit/kb/` beside the local store, or `--path`), or of the Postgres store `--db` (or `AGENTKIT_LOCAL_DB`) names: name, documents, chunks, size, path. Prints `No knowledge bases in <root>.` when there are none. `--limit <n>` shows the first n (then `showing <n>, more available` on stderr when there were more); `--json` prints `{ items, count, more_available }` with each base's status.",
    examples: [
      ['List bases', '$0 kb list'],
      ['List bases under another root', '$0 kb list --path data/kb --json'],
      ['List the bases of a shared Postgres store', "$0 kb list --db 'postgres://app@db:5432/prod?schema=agentkit'"],
    ],
  });

  json = Option.Boolean('--json', false, { description: 'Print JSON instead of a table' });
  limit = Option.String('--limit', { description: 'At most this many bases (default: all)' });

  async run(): Promise<void> {
    const limit = parseLimit(this.limit);
    const where = this.where();
    const all = await listKnowledgeBases(where);
    // The whole list is small (a folder of bases, the prompt names); it is read whole and cut here.
    const { items, more } = cutList(all, limit);
    if (this.json) {
      this.out(JSON.stringify({ items, count: items.length, more_available: more }, null, 2));
      return;
    }
    if (more) this.err(cutNotice(items.length));
    if (items.length === 0) {
      this.out(`No knowledge bases in ${kbPlace(where)}.`);
      return;
    }
    const rows = items.map((s) => [s.name, String(s.documents), String(s.chunks), formatBytes(s.size_bytes), s.path]);
    for (const line of table(['NAME', 'DOCUMENTS', 'CHUNKS', 'SIZE', 'PATH'], rows, { right: [1, 2, 3], width: outputWidth(this.context.stdout) }))
      this.out(line);
  }
}

/** `kb status --name <kb> [--json]` */
export class KbStatusCommand extends KbCommand {
  static override paths = [['kb', 'status']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'Show one knowledge base',
    details:
      "Prints the base's path, documents, chunks, size on disk, search modes (the default marked), embedder and chunking. An unknown base prints one line naming the bases that exist and exits 1. `--json` prints the status object.",
    examples: [['Status of the docs base', '$0 kb status --name docs']],
  });

  name = Option.String('--name', { required: true, description: 'The base' });
  json = Option.Boolean('--json', false, { description: 'Print JSON' });

  async run(): Promise<void> {
    const status = await this.use(this.name, false, (kb) => kb.status());
    if (this.json) {
      this.out(JSON.stringify(status, null, 2));
      return;
    }
    this.out(`KB:        ${status.name}`);
    this.out(`Path:      ${status.path}`);
    this.out(`Documents: ${status.documents}`);
    this.out(`Chunks:    ${status.chunks}`);
    this.out(`Size:      ${formatBytes(status.size_bytes)}`);
    this.out(`Search:    ${status.search_modes.map((m) => (m === status.default_mode ? `${m} (default)` : m)).join(', ')}`);
    this.out(`Embedder:  ${status.embedder ? describeEmbedder(status.embedder) : 'none yet (recorded by the first add)'}`);
    this.out(`Chunking:  ${status.chunk_size} characters, ${status.overlap} overlap`);
  }
}

/** `kb add <file or dir>... --name <kb> [--json]` */
export class KbAddCommand extends KbCommand {
  static override paths = [['kb', 'add']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'Ingest files and directories into a knowledge base',
    details: [
      'Ingests `.txt`, `.md`/`.markdown` and `.pdf` files; a directory is walked recursively (hidden entries and `node_modules` skipped, other file types skipped and counted). The base is created when it does not exist. A changed file replaces its chunks; an unchanged one (same content hash) is skipped.',
      "Embedder: the base's recorded one; for a new base an OpenAI-compatible endpoint when `AGENTKIT_KB_EMBEDDING_URL` and `AGENTKIT_KB_EMBEDDING_MODEL` are set (key from `AGENTKIT_KB_EMBEDDING_API_KEY`, else `OPENAI_API_KEY`), else the local hashing embedder (no key, no network).",
      'A file that cannot be ingested (missing, unreadable, unsupported type named directly, not UTF-8, a corrupt PDF) prints one line naming it on stderr; the rest are still ingested and the command exits 1 at the end. Progress (files, chunks, elapsed) is shown on stderr when it is a terminal. `--json` prints the report.',
    ].join('\n\n'),
    examples: [
      ['Ingest a folder', '$0 kb add docs/ --name docs'],
      ['Ingest two files', '$0 kb add README.md manual.pdf --name docs'],
    ],
  });

  sources = Option.Rest({ name: 'file or dir', required: 1 });
  name = Option.String('--name', { required: true, description: 'The base (created if missing)' });
  json = Option.Boolean('--json', false, { description: 'Print the report as JSON' });

  async run(): Promise<number> {
    const tty = (this.context.stderr as { isTTY?: boolean }).isTTY === true;
    const started = Date.now();
    const progress = (p: AddProgress) => {
      const elapsed = ((Date.now() - started) / 1000).toFixed(1);
      this.context.stderr.write(`\r\u001b[2Kfiles ${p.filesDone}/${p.filesTotal}  chunks ${p.chunks}  ${elapsed}s`);
    };
    const report = await this.use(this.name, true, (kb) => kb.add(this.sources, tty ? { onProgress: progress } : {}));
    if (tty) this.context.stderr.write('\r\u001b[2K');
    for (const file of report.files) if (file.status === 'failed') this.err(`error: ${file.error}`);
    if (this.json) this.out(JSON.stringify(report, null, 2));
    else {
      const parts = [`${report.added} added`, `${report.updated} updated`, `${report.unchanged} unchanged`, `${report.failed} failed`];
      const skipped = report.skipped > 0 ? `, ${report.skipped} skipped (unsupported type)` : '';
      this.out(`${this.name}: ${parts.join(', ')}${skipped}; ${report.chunks} chunks written in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    }
    return report.failed > 0 ? 1 : 0;
  }
}

/** `kb delete <file> --name <kb>` */
export class KbDeleteCommand extends KbCommand {
  static override paths = [['kb', 'delete']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'Remove a source file and its chunks from a knowledge base',
    details:
      'Removes the document ingested from `<file>` (resolved against the working directory, as `kb add` resolved it) and all its chunks; a directory removes every source under it. Prints what was removed. A source the base does not hold, or an unknown base, exits 1.',
    examples: [['Remove one file', '$0 kb delete docs/old-faq.md --name docs']],
  });

  source = Option.String({ name: 'file' });
  name = Option.String('--name', { required: true, description: 'The base' });

  async run(): Promise<void> {
    const removed = await this.use(this.name, false, (kb) => kb.delete(this.source));
    this.out(`${this.name}: removed ${removed.documents} document${removed.documents === 1 ? '' : 's'}, ${removed.chunks} chunks`);
  }
}

/** `kb clear --name <kb>` */
export class KbClearCommand extends KbCommand {
  static override paths = [['kb', 'clear']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'Remove every document and chunk of a knowledge base',
    details:
      'Empties the base (its directory stays, so `kb list` still shows it) and forgets its embedder, so the next `kb add` may use another. An unknown base exits 1.',
    examples: [['Clear the docs base', '$0 kb clear --name docs']],
  });

  name = Option.String('--name', { required: true, description: 'The base' });

  async run(): Promise<void> {
    const removed = await this.use(this.name, false, (kb) => kb.clear());
    this.out(`${this.name}: cleared ${removed.documents} documents, ${removed.chunks} chunks`);
  }
}

/** `kb search "<query>" --name <kb> [--top-k N] [--mode m] [--json]` */
export class KbSearchCommand extends KbCommand {
  static override paths = [['kb', 'search']];

  static override usage = Command.Usage({
    category: 'Knowledge bases',
    description: 'Search a knowledge base',
    details:
      "Prints the best chunks, best first: score, source, heading or page, and the text (first 300 characters; `--json` prints whole results with offsets). `--mode` is `keyword` (BM25: FTS5 on a file, tsvector on Postgres; no key), `vector` or `hybrid`; the default is the base's. No hit prints `No results.`",
    examples: [
      ['Search', '$0 kb search "refund window" --name docs'],
      ['Top 10 as JSON', '$0 kb search "refund window" --name docs --top-k 10 --json'],
    ],
  });

  query = Option.String({ name: 'query' });
  name = Option.String('--name', { required: true, description: 'The base' });
  topK = Option.String('--top-k', {
    description: 'Hits to return (default 4)',
    validator: t.cascade(t.isNumber(), [t.isInteger(), t.isInInclusiveRange(1, 1000)]),
  });
  mode = Option.String('--mode', { description: `Search mode: ${SEARCH_MODES.join(', ')}` });
  json = Option.Boolean('--json', false, { description: 'Print JSON' });

  async run(): Promise<void> {
    if (this.mode !== undefined && !SEARCH_MODES.includes(this.mode as SearchMode))
      throw new UsageError(`--mode must be one of ${SEARCH_MODES.join(', ')}, got '${this.mode}'`);
    const hits = await this.use(this.name, false, (kb) => kb.search(this.query, { topK: this.topK, mode: this.mode as SearchMode | undefined }));
    if (this.json) {
      this.out(JSON.stringify({ items: hits, count: hits.length }, null, 2));
      return;
    }
    if (hits.length === 0) {
      this.out('No results.');
      return;
    }
    for (const [i, hit] of hits.entries()) {
      const where = hit.heading ? ` > ${hit.heading}` : hit.page !== null ? ` (page ${hit.page})` : '';
      const source = path.relative(this.context.cwd, hit.source).startsWith('..') ? hit.source : path.relative(this.context.cwd, hit.source);
      this.out(`${i + 1}. [${hit.score.toFixed(3)}] ${source}${where}`);
      const text = hit.content.replace(/\s+/g, ' ').trim();
      this.out(`   ${text.length > 300 ? `${text.slice(0, 300)}...` : text}`);
    }
  }
}

/** How messages name the place of the bases: the root directory, or the store (password redacted). */
function kbPlace(where: Parameters<typeof kbCatalogOf>[0]): string {
  const catalog = kbCatalogOf(where);
  void catalog.close();
  return catalog.where;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
