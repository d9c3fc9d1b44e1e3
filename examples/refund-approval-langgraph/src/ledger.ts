// The agent's own record of what it did to the world: one SQLite file in the folder it is given.
// A refund or an email is a row; with a key, a second try of the same call finds its row and does
// nothing (the key is unique).

import Database from 'better-sqlite3';
import { join } from 'node:path';

export interface Effect {
  kind: string;
  target: string;
  args: Record<string, unknown>;
}

export class Ledger {
  private readonly db: Database.Database;

  constructor(dataDir: string) {
    this.db = new Database(join(dataDir, 'ledger.sqlite'));
    this.db.exec('CREATE TABLE IF NOT EXISTS effects (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL, key TEXT UNIQUE)');
  }

  /** Records the effect; with a key already recorded, does nothing and says so. */
  record(effect: Effect, key: string | null): boolean {
    const r = this.db.prepare('INSERT OR IGNORE INTO effects (kind, target, args, key) VALUES (?, ?, ?, ?)').run(effect.kind, effect.target, JSON.stringify(effect.args), key);
    return r.changes === 1;
  }

  all(): Effect[] {
    const rows = this.db.prepare('SELECT kind, target, args FROM effects ORDER BY seq').all() as { kind: string; target: string; args: string }[];
    return rows.map((r) => ({ kind: r.kind, target: r.target, args: JSON.parse(r.args) as Record<string, unknown> }));
  }

  close(): void {
    this.db.close();
  }
}
