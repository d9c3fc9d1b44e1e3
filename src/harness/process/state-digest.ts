// A digest of what a life can read back from a state folder of real files: the rows of its SQLite
// databases (not their bytes: a database's pages, its WAL and its salts differ between two
// processes that stored the same rows) and the bytes of its other files. Two folders with one
// digest give any life started from them the same reads.
//
// Some engines store values made of the clock or of random numbers (LangGraph's checkpoint ids are
// time-based UUIDs, its message ids random ones, each checkpoint has a timestamp). A life only
// compares such values with each other, so `canonical` may rewrite them by their order of first
// appearance across the whole folder (see renameUuidsAndTimes): two states equal up to that
// renaming read the same.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { bytesKeyOf, entriesByName, readFolder } from './folder-files.js';

export interface StateFile {
  name: string;
  /**
   * `names`: the names a state's copy is given of its own (DBOS's workflow id in its system
   * database), which no life compares with another state's; read by the engine, never digested
   * (what they name outside the folder is, see OutsideState in process-lives.ts). `folder`: a
   * folder of files killpoint does not know (a user's agent keeps its own data there), each file
   * under it read by its path, an SQLite database (known by its header) by its rows.
   */
  kind: 'sqlite' | 'bytes' | 'names' | 'folder';
}

/** Rewrites a row's text (JSON) or a file's bytes (latin1) before it is hashed. */
export type Canonical = (text: string) => string;

const keep: Canonical = (text) => text;

/**
 * `files` names the folder's files and how to read each; any other file found there (a temporary
 * file a kill left, say) is digested as bytes, and any other folder as a `folder`, so nothing in
 * the folder goes unread. A database's companions (-wal, -shm, -journal) are read through the database.
 */
export function digestStateFolder(dir: string, files: readonly StateFile[], makeCanonical: () => Canonical = () => keep): string {
  const hash = createHash('sha256');
  const canonical = makeCanonical();
  const declared = new Map(files.map((f) => [f.name, f.kind]));
  const companions = new Set(files.filter((f) => f.kind === 'sqlite').flatMap((f) => COMPANIONS.map((x) => f.name + x)));
  const names = [...new Set([...files.map((f) => f.name), ...readdirSync(dir).filter((n) => !companions.has(n)).sort()])];
  for (const name of names) {
    if (declared.get(name) === 'names') continue;
    const path = join(dir, name);
    hash.update(`\u0000file ${name}\u0000`);
    if (!existsSync(path)) {
      hash.update('absent');
      continue;
    }
    const kind = declared.get(name) ?? (statSync(path).isDirectory() ? 'folder' : 'bytes');
    if (kind === 'bytes') hash.update(canonical(readFileSync(path).toString('latin1')));
    else if (kind === 'sqlite') for (const row of sqliteRows(path)) hash.update(`${canonical(row)}\n`);
    else hashUnknownFolder(path, hash, canonical);
  }
  return hash.digest('hex');
}

const COMPANIONS = ['-wal', '-shm', '-journal'];
const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * A folder of files killpoint knows nothing of, each by its path under the folder, in name order
 * (a database before its companions): a database (known by its header) by its rows, read through
 * its companions; one whose rows cannot all be read (a table of a module this build lacks), and
 * its companions, by their bytes as any other file: never equal where they differ.
 */
function hashUnknownFolder(dir: string, hash: ReturnType<typeof createHash>, canonical: Canonical, under = ''): void {
  const readAsRows = new Set<string>();
  for (const entry of entriesByName(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      hash.update(`\u0000folder ${under}${entry.name}\u0000`);
      hashUnknownFolder(path, hash, canonical, `${under}${entry.name}/`);
      continue;
    }
    if (COMPANIONS.some((c) => entry.name.endsWith(c) && readAsRows.has(entry.name.slice(0, -c.length)))) continue;
    const bytes = readFileSync(path);
    const rows = bytes.subarray(0, SQLITE_HEADER.length).equals(SQLITE_HEADER) ? rowsIfReadable(path) : null;
    if (rows === null) {
      hash.update(`\u0000file ${under}${entry.name}\u0000`);
      hash.update(canonical(bytes.toString('latin1')));
    } else {
      readAsRows.add(entry.name);
      hash.update(`\u0000database ${under}${entry.name}\u0000`);
      for (const row of rows) hash.update(`${canonical(row)}\n`);
    }
  }
}

function rowsIfReadable(path: string): string[] | null {
  try {
    return sqliteRows(path);
  } catch {
    return null;
  }
}

/**
 * The bytes of every file in the folder (companions included), hashed: two folders with the same
 * bytes have the same digest, so a digest can be remembered by this cheaper key (the SQLite
 * reading of digestStateFolder dominates an in-process sweep, where most kill points leave the
 * bytes of the one before). Taken before the digest, whose reading may fold a WAL into its database.
 */
export function folderBytesKey(dir: string): string {
  return bytesKeyOf(readFolder(dir));
}

/** Every table's rows in the order they were stored, each as JSON (blobs as latin1 text). */
function sqliteRows(path: string): string[] {
  // Opened read-write: a database a killed process left in WAL mode is read through its WAL, which
  // a reader must be able to lock. Closing it may fold the WAL into the database: the same rows.
  const db = new Database(path, { fileMustExist: true });
  try {
    const rows: string[] = [];
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string | null }[];
    for (const { name: table, sql } of tables) {
      rows.push(`table ${table}`);
      // A table without rowids (an agent's own database may have one) is stored, and read, in its key's order.
      const order = /WITHOUT\s+ROWID/i.test(sql ?? '') ? '' : ' ORDER BY rowid';
      for (const row of db.prepare(`SELECT * FROM "${table.replaceAll('"', '""')}"${order}`).raw().all() as unknown[][]) {
        rows.push(JSON.stringify(row.map((v) => (Buffer.isBuffer(v) ? `blob:${v.toString('latin1')}` : v))));
      }
    }
    return rows;
  } finally {
    db.close();
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
/** A timestamp field as LangGraph writes it in a checkpoint's JSON (escaped or not). */
const TIMESTAMP = /(\\*"ts\\*":\s*\\*")[0-9T:.\-Z+]+(\\*")/g;

/**
 * A canonical form for folders whose stored ids are UUIDs and whose records carry timestamps: each
 * UUID becomes its rank of first appearance in this folder (order is kept: time-based ids sort as
 * they were made, and are made in the order they are stored), each timestamp is dropped.
 */
export function renameUuidsAndTimes(): Canonical {
  const ranks = new Map<string, number>();
  return (text) =>
    text.replace(TIMESTAMP, '$1$2').replace(UUID, (uuid) => {
      const id = uuid.toLowerCase();
      let rank = ranks.get(id);
      if (rank === undefined) {
        rank = ranks.size;
        ranks.set(id, rank);
      }
      return `uuid#${rank}`;
    });
}
