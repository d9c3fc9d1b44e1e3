// A shop that answers reads from memory while nothing has changed the tables they read: speed
// only, for the reused in-memory stores (reusable-stores.ts). A simulated run reads the checker's
// tables back after every kill-and-resume, and most runs change one or two tables, or none; the
// scripted agent also repeats the same reads in every life. The shop's rules stay in
// src/model/shop.ts; this subclass only hears of each write (`wrote`) and answers `tableRows` and
// read tool calls from what it noted, and must give exactly what a query would.
//
// How it knows nothing changed: every change this connection made since `remember` or
// `restored` is counted by SQLite (total_changes; an in-memory database has no other
// connection). When that count equals the rows changed by the shop's own statements, whose
// tables are known from their SQL, no change was made behind the shop's back, and a table none of
// its own statements wrote to still holds the rows noted. Otherwise every read is a query (so a
// statement that failed, which the shop does not report, costs speed if it changed anything, never
// a wrong answer).

import type Database from 'better-sqlite3';
import type { ShopRows } from '../../../model/scenario.js';
import { Shop, STATE_TABLES, type ReadTable, type ShopCall } from '../../../model/shop.js';
import type { ReadTool, ToolName, ToolResult } from '../../../model/tools.js';

/** The tables the checker reads after a run: the business state and the two logs. */
const READ_TABLES: readonly ReadTable[] = [...STATE_TABLES, 'write_log', 'refusal_log'];
/** Stands for every table, when a statement's table is not known. */
const ANY_TABLE = '*';

const writtenTables = new Map<string, string>();

/** The table an INSERT, UPDATE or DELETE writes to. */
function tableWritten(sql: string): string {
  let table = writtenTables.get(sql);
  if (table === undefined) {
    table = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i.exec(sql)?.[1] ?? ANY_TABLE;
    writtenTables.set(sql, table);
  }
  return table;
}

/**
 * The tables each read tool's queries look at (see Shop's `perform`, and its `customer` and
 * `order`): a read is answered from an earlier identical read while none of them has changed.
 * A new read tool, or a read tool's query that looks at another table, must be added here.
 */
const READ_DEPENDS_ON: Record<ReadTool, readonly string[]> = {
  find_customer: ['customers'],
  list_orders: ['customers', 'orders', 'order_lines'],
  get_order: ['orders', 'order_lines', 'refunds'],
  list_refunds: ['orders', 'refunds'],
};

/** A key that tells apart any two argument objects whose values are all strings; null for any other. */
function stringArgsKey(args: Record<string, unknown>): string | null {
  if (Object.getPrototypeOf(args) !== Object.prototype) return null;
  for (const name in args) if (!Object.hasOwn(args, name) || typeof args[name] !== 'string') return null;
  return JSON.stringify(args);
}

export class ReadCachingShop extends Shop {
  /** What `remember` noted: each read table's rows, SQLite's count of changes at that moment, and read results since. */
  private remembered!: { rows: Map<ReadTable, readonly unknown[]>; totalChanges: number; reads: Map<string, string> };
  /** Rows changed by this shop's own statements since `remember` or `restored`, and their tables. */
  private ownChanges = 0;
  private readonly touched = new Set<string>();
  private readonly totalChangesStatement: Database.Statement;

  private constructor(db: Database.Database) {
    super(db);
    this.totalChangesStatement = db.prepare('SELECT total_changes()').pluck();
    this.remember();
  }

  /** A new in-memory shop holding the scenario's starting rows, which it has noted (`remember`). */
  static seeded(rows: ShopRows): ReadCachingShop {
    return new ReadCachingShop(Shop.seededDatabase(rows, ':memory:'));
  }

  /**
   * Notes the rows now held in the tables the checker reads, so that later reads of a table
   * nothing has changed since are answered without a query.
   */
  remember(): void {
    const rows = new Map<ReadTable, readonly unknown[]>();
    const queried = super.tableRows(READ_TABLES);
    for (let i = 0; i < READ_TABLES.length; i++) rows.set(READ_TABLES[i]!, queried[i]!);
    this.remembered = { rows, totalChanges: this.totalChanges(), reads: new Map() };
    this.ownChanges = 0;
    this.touched.clear();
  }

  /** The caller has brought the rows back to what `remember` noted (by rolling back everything since). */
  restored(): void {
    this.remembered.totalChanges = this.totalChanges();
    this.ownChanges = 0;
    this.touched.clear();
  }

  override call(tool: ToolName, args: Record<string, unknown>, key: string | null = null): ShopCall {
    const reads = Object.hasOwn(READ_DEPENDS_ON, tool) ? READ_DEPENDS_ON[tool as ReadTool] : undefined;
    if (reads === undefined) return super.call(tool, args, key);
    // A read of tables still as `remember` noted them gives what it gave then (a read changes nothing).
    const argsKey = stringArgsKey(args);
    const unchanged = argsKey !== null && reads.every((t) => !this.touched.has(t)) && this.onlyOwnChanges();
    const cacheKey = `${tool}\u0000${argsKey}`;
    if (unchanged) {
      const seen = this.remembered.reads.get(cacheKey);
      if (seen !== undefined) return { result: JSON.parse(seen) as ToolResult, committed: false, replayed: false };
    }
    const call = super.call(tool, args, null);
    if (unchanged) this.remembered.reads.set(cacheKey, JSON.stringify(call.result));
    return call;
  }

  /** A table's rows: what `remember` noted when only own changes were made and none touched it; else a query. */
  protected override tableRows(tables: readonly ReadTable[]): (readonly unknown[])[] {
    if (!this.onlyOwnChanges()) return super.tableRows(tables);
    return tables.map((table) => (this.touched.has(table) ? super.tableRows([table])[0]! : this.remembered.rows.get(table)!));
  }

  protected override wrote(sql: string, changes: number): void {
    this.touched.add(tableWritten(sql));
    this.ownChanges += changes;
  }

  /**
   * Every change this connection made since `remember` or `restored` (SQLite's total_changes; an
   * in-memory database has no other connection) is one of this shop's own statements, whose
   * tables are known.
   */
  private onlyOwnChanges(): boolean {
    if (this.touched.has(ANY_TABLE)) return false;
    return this.totalChanges() - this.remembered.totalChanges === this.ownChanges;
  }

  private totalChanges(): number {
    return this.totalChangesStatement.get() as number;
  }
}
