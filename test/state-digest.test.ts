// The digest of a state folder of real files, the key under which the explorer shares one
// recovery among kill points: equal for folders a life reads the same from, different for folders
// it could read differently from. Each broken digest one might write (bytes instead of rows, ids
// collapsed instead of renamed, a file left out) is shown to be wrong by one of these cases.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { digestStateFolder, renameUuidsAndTimes, type StateFile } from '../src/harness/process/state-digest.js';

const FILES: StateFile[] = [
  { name: 'db.sqlite', kind: 'sqlite' },
  { name: 'outbox.jsonl', kind: 'bytes' },
];
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A folder whose database holds these rows (id, parent, body), stored in this order. */
function folder(rows: [string, string | null, string][], options: { wal?: boolean; outbox?: string; padding?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-digest-'));
  dirs.push(dir);
  const db = new Database(join(dir, 'db.sqlite'));
  if (options.wal) db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE checkpoints (id TEXT PRIMARY KEY, parent TEXT, body BLOB)');
  // Rows written and deleted again change the file's pages, not what a reader finds.
  if (options.padding) {
    db.exec("INSERT INTO checkpoints VALUES ('pad', NULL, zeroblob(100000))");
    db.exec("DELETE FROM checkpoints WHERE id = 'pad'");
  }
  const insert = db.prepare('INSERT INTO checkpoints VALUES (?, ?, ?)');
  for (const [id, parent, body] of rows) insert.run(id, parent, Buffer.from(body));
  db.close();
  if (options.outbox !== undefined) writeFileSync(join(dir, 'outbox.jsonl'), options.outbox);
  return dir;
}

const A = '1f1edd70-1196-68b0-ffff-25e7cdc4c8ba';
const B = '1f1edd70-11c0-60c0-8000-1e4dafa8e4f5';
const C = '1f1edd70-1703-6b40-ffff-ee463893378e';
const D = '1f1edd70-1760-67a0-8000-456dba7ac387';
const digest = (dir: string) => digestStateFolder(dir, FILES, renameUuidsAndTimes);

describe('the digest of a state folder', () => {
  it('reads rows, not bytes: the same rows in another page layout or in WAL mode digest the same', () => {
    const rows: [string, string | null, string][] = [['a', null, 'first'], ['b', 'a', 'second']];
    const plain = folder(rows);
    expect(digestStateFolder(folder(rows, { padding: true }), FILES)).toBe(digestStateFolder(plain, FILES));
    expect(digestStateFolder(folder(rows, { wal: true }), FILES)).toBe(digestStateFolder(plain, FILES));
  });

  it('tells apart folders whose rows differ, or whose other files differ, or where a file is missing', () => {
    const base = digestStateFolder(folder([['a', null, 'first']], { outbox: 'answer\n' }), FILES);
    expect(digestStateFolder(folder([['a', null, 'other']], { outbox: 'answer\n' }), FILES)).not.toBe(base);
    expect(digestStateFolder(folder([['a', null, 'first'], ['b', 'a', 'x']], { outbox: 'answer\n' }), FILES)).not.toBe(base);
    expect(digestStateFolder(folder([['a', null, 'first']], { outbox: 'answer twice\n' }), FILES)).not.toBe(base);
    expect(digestStateFolder(folder([['a', null, 'first']]), FILES)).not.toBe(base);
  });

  it('renames clock-made and random ids by their order, and drops timestamps: two runs of the same steps digest the same', () => {
    const first = folder([[A, null, `{"id":"${A}","ts":"2026-12-01T22:31:51.739Z"}`], [B, A, `{"id":"${B}","ts":"2026-12-01T22:31:51.756Z"}`]]);
    const second = folder([[C, null, `{"id":"${C}","ts":"2026-12-01T22:31:52.308Z"}`], [D, C, `{"id":"${D}","ts":"2026-12-01T22:31:52.346Z"}`]]);
    expect(digest(second)).toBe(digest(first));
    // Without the renaming they differ, which is why it is needed to share any recovery.
    expect(digestStateFolder(second, FILES)).not.toBe(digestStateFolder(first, FILES));
  });

  it('keeps which id refers to which: ids collapsed into one would make these equal', () => {
    const chain = folder([[A, null, 'x'], [B, A, 'y']]);
    const twoRoots = folder([[A, null, 'x'], [B, B, 'y']]);
    expect(digest(twoRoots)).not.toBe(digest(chain));
  });

  it('keeps text that only looks like a timestamp field elsewhere', () => {
    expect(digest(folder([['a', null, '{"ts":"2026-12-01T22:31:51.739Z"}']]))).toBe(digest(folder([['a', null, '{"ts":"2027-01-01T00:00:00.000Z"}']])));
    expect(digest(folder([['a', null, '{"sent":"2026-12-01"}']]))).not.toBe(digest(folder([['a', null, '{"sent":"2027-01-01"}']])));
  });
});

describe('what the digest reads of a folder', () => {
  it('reads a file it was not told about (a temporary file a kill left) as bytes', () => {
    const dir = folder([['a', null, 'x']]);
    const before = digestStateFolder(dir, FILES);
    writeFileSync(join(dir, 'journal.json.tmp'), '{"half":');
    expect(digestStateFolder(dir, FILES)).not.toBe(before);
  });
});

describe('a file of names (a copy of the state names its rows outside the folder by it)', () => {
  it('is left out of the digest when declared as names, and digested like any other file when not', () => {
    const a = folder([['x', null, 'one']]);
    const b = folder([['x', null, 'one']]);
    writeFileSync(join(a, 'identity.json'), '{"workflowId":"T01-aaaa"}');
    writeFileSync(join(b, 'identity.json'), '{"workflowId":"T01-bbbb"}');
    const withNames: StateFile[] = [...FILES, { name: 'identity.json', kind: 'names' }];
    expect(digestStateFolder(a, withNames)).toBe(digestStateFolder(b, withNames));
    // Broken variant: the names digested (an undeclared file is read as bytes), so no two copies would ever share a recovery.
    expect(digestStateFolder(a, FILES)).not.toBe(digestStateFolder(b, FILES));
  });
});

describe("a folder of an agent's own data (files killpoint knows nothing of)", () => {
  const WITH_DATA: StateFile[] = [...FILES, { name: 'data', kind: 'folder' }];

  /** A state folder whose agent keeps a ledger database (these rows) and a note under data/. */
  function withData(ledger: string[], options: { note?: string; wal?: boolean; padding?: boolean; withoutRowid?: boolean } = {}): string {
    const dir = folder([['a', null, 'x']]);
    mkdirSync(join(dir, 'data', 'notes'), { recursive: true });
    const db = new Database(join(dir, 'data', 'ledger.sqlite'));
    if (options.wal) db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE effects (key TEXT PRIMARY KEY, kind TEXT)${options.withoutRowid ? ' WITHOUT ROWID' : ''}`);
    if (options.padding) db.exec("INSERT INTO effects VALUES ('pad', zeroblob(100000)); DELETE FROM effects WHERE key = 'pad'");
    for (const key of ledger) db.prepare('INSERT INTO effects VALUES (?, ?)').run(key, 'refund');
    // Left open in WAL mode, the rows are in the -wal file beside it, as a killed agent leaves them.
    if (!options.wal) db.close();
    writeFileSync(join(dir, 'data', 'notes', 'last.txt'), options.note ?? 'done');
    return dir;
  }

  it('reads its databases by their rows, through their companions, whatever their pages', () => {
    const plain = digestStateFolder(withData(['k1', 'k2']), WITH_DATA);
    expect(digestStateFolder(withData(['k1', 'k2'], { padding: true }), WITH_DATA)).toBe(plain);
    expect(digestStateFolder(withData(['k1', 'k2'], { wal: true }), WITH_DATA)).toBe(plain);
    // Broken variant: read as bytes, the same rows in other pages would never share a recovery.
    expect(bytesOfData(withData(['k1', 'k2'], { padding: true }))).not.toBe(bytesOfData(withData(['k1', 'k2'])));
  });

  it('tells apart rows, files under it and tables without rowids that differ', () => {
    const base = digestStateFolder(withData(['k1']), WITH_DATA);
    expect(digestStateFolder(withData(['k1', 'k1-again']), WITH_DATA)).not.toBe(base);
    expect(digestStateFolder(withData(['k1'], { note: 'half' }), WITH_DATA)).not.toBe(base);
    const keyed = digestStateFolder(withData(['k1', 'k2'], { withoutRowid: true }), WITH_DATA);
    expect(digestStateFolder(withData(['k1'], { withoutRowid: true }), WITH_DATA)).not.toBe(keyed);
  });

  it('reads a folder it was not told about the same way, so nothing in the state goes unread', () => {
    expect(digestStateFolder(withData(['k1']), FILES)).toBe(digestStateFolder(withData(['k1']), WITH_DATA));
    expect(digestStateFolder(withData(['k1', 'k2']), FILES)).not.toBe(digestStateFolder(withData(['k1']), FILES));
  });
});

/** The data folder's files as bytes, the digest a folder of unknown files would have without reading databases by rows. */
function bytesOfData(dir: string): string {
  const data = join(dir, 'data');
  return ['ledger.sqlite', 'notes/last.txt'].map((f) => readFileSync(join(data, f)).toString('base64')).join('|');
}
