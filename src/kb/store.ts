/**
 * A knowledge base's own SQLite file, `<root>/<name>/kb.sqlite`: documents (one per source file, with its content
 * hash), chunks (text, offsets, heading, page, and the vector beside them as float32 bytes), an FTS5 index over the
 * chunks kept in step by triggers (its `rank` is BM25 with the heading weighted twice), and `kb_meta` (embedder, chunking, a generation counter bumped by every write so
 * cached vectors know when they are stale). Its schema has its own small ladder (`PRAGMA user_version`); it is not
 * local.db. Created 0600 in a 0700 directory, WAL, like the local store.
 */
import Database from 'better-sqlite3';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';

export const KB_FILE = 'kb.sqlite';

const LADDER: readonly string[] = [
  `
  CREATE TABLE kb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL UNIQUE,
    format TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    size_bytes INTEGER NOT NULL,
    chars INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    added_at TEXT NOT NULL
  );
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    content TEXT NOT NULL,
    heading TEXT,
    page INTEGER,
    start_char INTEGER NOT NULL,
    end_char INTEGER NOT NULL,
    embedding BLOB
  );
  CREATE INDEX idx_chunks_document ON chunks(document_id, ordinal);
  CREATE VIRTUAL TABLE chunks_fts USING fts5(content, heading, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
  INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('rank', 'bm25(1.0, 2.0)');
  CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
    INSERT INTO chunks_fts(rowid, content, heading) VALUES (new.id, new.content, coalesce(new.heading, ''));
  END;
  CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
    INSERT INTO chunks_fts(chunks_fts, rowid, content, heading) VALUES ('delete', old.id, old.content, coalesce(old.heading, ''));
  END;`,
];

/** Open (creating when `create`) the store of the base in `dir`. Throws ConfigError for a file from a newer agentkit. */
export function openKbStore(dir: string, create: boolean): Database.Database {
  const file = path.join(dir, KB_FILE);
  if (create) {
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  }
  const db = new Database(file, { fileMustExist: !create });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > LADDER.length)
      throw new ConfigError(`${file} was written by a newer agentkit (knowledge base schema ${version}, this one knows ${LADDER.length})`);
    for (let v = version + 1; v <= LADDER.length; v++) {
      db.transaction(() => {
        if ((db.pragma('user_version', { simple: true }) as number) >= v) return;
        db.exec(LADDER[v - 1]!);
        db.pragma(`user_version = ${v}`);
      }).immediate();
    }
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Read one `kb_meta` value. */
export function getMeta(db: Database.Database, key: string): string | undefined {
  return (db.prepare('SELECT value FROM kb_meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

/** Write one `kb_meta` value. */
export function setMeta(db: Database.Database, key: string, value: string): void {
  db.prepare('INSERT INTO kb_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** Bump the generation (call inside every write transaction). */
export function bumpGeneration(db: Database.Database): void {
  setMeta(db, 'generation', String(Number(getMeta(db, 'generation') ?? '0') + 1));
}
