// Durable state: what survives a kill. The shop, the journal, the workflow's step records and the
// answers delivered to the customer. Everything else an agent life holds is in memory and is
// dropped with it. The journal and step records hold serialized text, never live objects, so a
// resumed life cannot see anything a real restarted process could not read back.

import Database from 'better-sqlite3';
import { Shop, type RefusalRecord, type ShopCall, type ShopSnapshot, type WriteRecord } from './shop.js';
import type { ToolName } from './tools.js';
import type { ShopRows } from './scenario.js';

/**
 * A journal is saved in two moments, so that a kill can land inside a save:
 * 1. `write(text)`: the new text is written (to a temp file; or, for the broken in-place
 *    variant, over the journal itself, and a kill now leaves it torn);
 * 2. `commit()`: the temp file is renamed over the journal (in place: the write is finished).
 * After a kill, `load()` returns the old text or the new one, never a mix, unless in place.
 */
export interface JournalStore {
  /** Where it lives, for error messages. */
  readonly location: string;
  load(): string | null;
  write(text: string): void;
  commit(): void;
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

/** What a life and the checker ask of the shop (a Shop, or a Shop watched by a recorder). */
export interface ShopStore {
  call(tool: ToolName, args: Record<string, unknown>, key?: string | null): ShopCall;
  writeLog(): WriteRecord[];
  refusalLog(): RefusalRecord[];
  snapshot(): ShopSnapshot;
  close(): void;
}

export interface DurableStores {
  shop: ShopStore;
  journal: JournalStore;
  workflow: WorkflowStore;
  outbox: Outbox;
}

/**
 * The in-memory journal, with the same semantics as the file one: `rename` keeps the new text
 * aside until commit (temp file, then rename); `in-place` overwrites the journal at once, and
 * between write and commit only the first half of the new bytes is there (a torn write).
 */
export class MemoryJournal implements JournalStore {
  readonly location: string;
  private text: string | null = null;
  private pending: string | null = null;

  constructor(private readonly mode: JournalWriteMode = 'rename') {
    this.location = mode === 'rename' ? 'in-memory journal' : 'in-memory journal (written in place)';
  }

  load(): string | null {
    return this.text;
  }

  /** Puts back what an earlier life left saved (a recovery started from a recorded durable state). */
  restore(text: string | null): void {
    this.text = text;
    this.pending = null;
  }

  write(text: string): void {
    this.pending = text;
    if (this.mode === 'in-place') this.text = text.slice(0, Math.floor(text.length / 2));
  }

  commit(): void {
    // Parallel tool calls save concurrently: A writes, B writes (the newer text holds both
    // results), A renames it, and B finds its temp file already renamed. Nothing is left to do.
    if (this.pending === null) return;
    this.text = this.pending;
    this.pending = null;
  }
}

export type JournalWriteMode = 'rename' | 'in-place';

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

export function memoryStores(rows: ShopRows, journalMode: JournalWriteMode = 'rename'): DurableStores {
  return { shop: Shop.create(rows), journal: new MemoryJournal(journalMode), workflow: new SqliteWorkflowStore(), outbox: new MemoryOutbox() };
}

export function closeStores(stores: DurableStores): void {
  stores.shop.close();
  if (stores.workflow instanceof SqliteWorkflowStore) stores.workflow.close();
}
