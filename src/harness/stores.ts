// Durable state: what survives a kill. The shop, the journal, the workflow's step records and the
// answers delivered to the customer. Everything else an agent life holds is in memory and is
// dropped with it. The journal and step records hold serialized text, never live objects, so a
// resumed life cannot see anything a real restarted process could not read back.

import Database from 'better-sqlite3';
import { Shop } from '../model/shop.js';
import type { ShopRows } from '../model/scenario.js';

export interface JournalStore {
  /** Where it lives, for error messages. */
  readonly location: string;
  load(): string | null;
  /** Atomic: after a kill, load() returns either the old text or the new one, never a mix. */
  save(text: string): void;
}

export interface WorkflowStore {
  recorded(workflowId: string, step: number): string | undefined;
  record(workflowId: string, step: number, output: string): void;
}

/** The answers the customer received, by run id. */
export interface Outbox {
  delivered(runId: string): string[];
  deliver(runId: string, text: string): void;
}

export interface DurableStores {
  shop: Shop;
  journal: JournalStore;
  workflow: WorkflowStore;
  outbox: Outbox;
}

/** The in-memory journal: one string swapped whole, which is what temp-file-then-rename gives. */
export class MemoryJournal implements JournalStore {
  readonly location = 'in-memory journal';
  private text: string | null = null;
  load(): string | null {
    return this.text;
  }
  save(text: string): void {
    this.text = text;
  }
}

/** Step records in SQLite, as DBOS keeps its operation outputs (in memory or in a file). */
export class SqliteWorkflowStore implements WorkflowStore {
  private readonly db: Database.Database;
  private readonly select: Database.Statement;
  private readonly insert: Database.Statement;

  constructor(filename = ':memory:') {
    this.db = new Database(filename);
    if (filename !== ':memory:') this.db.pragma('journal_mode = WAL');
    this.db.exec('CREATE TABLE IF NOT EXISTS operation_outputs (workflow_id TEXT NOT NULL, step INTEGER NOT NULL, output TEXT NOT NULL, PRIMARY KEY (workflow_id, step))');
    this.select = this.db.prepare('SELECT output FROM operation_outputs WHERE workflow_id = ? AND step = ?');
    this.insert = this.db.prepare('INSERT INTO operation_outputs VALUES (?, ?, ?)');
  }

  recorded(workflowId: string, step: number): string | undefined {
    return (this.select.get(workflowId, step) as { output: string } | undefined)?.output;
  }

  record(workflowId: string, step: number, output: string): void {
    this.insert.run(workflowId, step, output);
  }

  close(): void {
    this.db.close();
  }
}

export class MemoryOutbox implements Outbox {
  private readonly answers = new Map<string, string[]>();
  delivered(runId: string): string[] {
    return [...(this.answers.get(runId) ?? [])];
  }
  deliver(runId: string, text: string): void {
    this.answers.set(runId, [...this.delivered(runId), text]);
  }
}

export function memoryStores(rows: ShopRows): DurableStores {
  return { shop: Shop.create(rows), journal: new MemoryJournal(), workflow: new SqliteWorkflowStore(), outbox: new MemoryOutbox() };
}

export function closeStores(stores: DurableStores): void {
  stores.shop.close();
  if (stores.workflow instanceof SqliteWorkflowStore) stores.workflow.close();
}
