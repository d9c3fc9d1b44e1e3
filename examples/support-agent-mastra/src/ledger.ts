// The workflow's own record of what it did to the world: one SQLite file in the folder it is
// given. With a key, a second try of the same step finds its row and does nothing (the key is unique).

import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface Effect {
  kind: string;
  target: string;
  args: Record<string, unknown>;
}

export function openLedger(dataDir: string) {
  const db = new Database(join(dataDir, 'ledger.sqlite'));
  db.exec('CREATE TABLE IF NOT EXISTS effects (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL, key TEXT UNIQUE)');
  return {
    record(effect: Effect, key: string | null): void {
      db.prepare('INSERT OR IGNORE INTO effects (kind, target, args, key) VALUES (?, ?, ?, ?)').run(effect.kind, effect.target, JSON.stringify(effect.args), key);
    },
    all(): Effect[] {
      const rows = db.prepare('SELECT kind, target, args FROM effects ORDER BY seq').all() as { kind: string; target: string; args: string }[];
      return rows.map((r) => ({ kind: r.kind, target: r.target, args: JSON.parse(r.args) as Record<string, unknown> }));
    },
    close: () => db.close(),
  };
}
