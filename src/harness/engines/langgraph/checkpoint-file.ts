// The checkpoint database a life is about to open, checked first: SqliteSaver would take any file
// (it creates its tables if they are missing) and fail later, deep inside a step, with an error
// that reads like a verdict on the agent. A file that is not SQLite, or a SQLite database whose
// tables are not the checkpointer's, is bad input and named as such.

import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

export class NotACheckpointDatabase extends Error {
  constructor(path: string, why: string) {
    super(`${path}: not a LangGraph checkpoint database (${why})`);
    this.name = 'NotACheckpointDatabase';
  }
}

const SQLITE_HEADER = 'SQLite format 3\u0000';

/** The columns SqliteSaver reads from each of its tables. */
const EXPECTED_COLUMNS: Record<string, readonly string[]> = {
  checkpoints: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'parent_checkpoint_id', 'type', 'checkpoint', 'metadata'],
  writes: ['thread_id', 'checkpoint_ns', 'checkpoint_id', 'task_id', 'idx', 'channel', 'type', 'value'],
};

/** Throws NotACheckpointDatabase unless `path` is absent, empty, or SQLite with the checkpointer's tables (or none yet). */
export function assertCheckpointDatabase(path: string): void {
  if (!existsSync(path) || statSync(path).size === 0) return;
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_HEADER) throw new NotACheckpointDatabase(path, 'not a SQLite database');
  let db: Database.Database | null = null;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
    if (tables.length === 0) return;
    for (const [table, columns] of Object.entries(EXPECTED_COLUMNS)) {
      if (!tables.includes(table)) throw new NotACheckpointDatabase(path, `no table "${table}"; its tables: ${tables.join(', ')}`);
      const has = new Set((db.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name));
      const missing = columns.filter((c) => !has.has(c));
      if (missing.length > 0) throw new NotACheckpointDatabase(path, `table "${table}" lacks ${missing.join(', ')}`);
    }
  } catch (error) {
    if (error instanceof NotACheckpointDatabase) throw error;
    throw new NotACheckpointDatabase(path, `SQLite cannot read it: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}
