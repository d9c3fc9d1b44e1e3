// The shop: Lantern Outfitters' system of record on SQLite. It survives every kill of the agent,
// so whatever it commits stays committed. Each tool call is one transaction; the rules a real
// shop enforces (no refund above what is left, no second cancellation, unknown ids refused) and
// the idempotency check (a key runs once) are decided inside that same transaction.

import Database from 'better-sqlite3';
import type { ShopRows } from './scenario.js';
import { argsProblem, isWriteTool, writeTarget, type ReadTool, type RefusalReason, type ToolName, type ToolResult, type WriteTool } from './tools.js';
import { canonicalJson } from './canonical-json.js';

const SCHEMA = `
CREATE TABLE customers (id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE, address TEXT NOT NULL);
CREATE TABLE orders (id TEXT PRIMARY KEY, customer_id TEXT NOT NULL REFERENCES customers(id), status TEXT NOT NULL);
CREATE TABLE order_lines (order_id TEXT NOT NULL REFERENCES orders(id), line_id TEXT NOT NULL, item TEXT NOT NULL,
  quantity INTEGER NOT NULL, price_cents INTEGER NOT NULL, PRIMARY KEY (order_id, line_id));
CREATE TABLE refunds (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL, line_id TEXT NOT NULL, amount_cents INTEGER NOT NULL);
CREATE TABLE cancellations (id INTEGER PRIMARY KEY, order_id TEXT NOT NULL);
CREATE TABLE address_changes (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, address TEXT NOT NULL);
CREATE TABLE emails (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL);
CREATE TABLE handoffs (id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, reason TEXT NOT NULL);
-- The shop's own logs: every committed write, and every write its rules refused.
CREATE TABLE write_log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL, key TEXT);
CREATE TABLE refusal_log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL,
  key TEXT, reason TEXT NOT NULL);
-- A key runs once: the primary key makes a second insert of the same key impossible.
CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, result TEXT NOT NULL);
`;

/** The tables whose rows are the shop's business state (the logs are compared separately). */
export const STATE_TABLES = ['customers', 'orders', 'order_lines', 'refunds', 'cancellations', 'address_changes', 'emails', 'handoffs'] as const;

export interface WriteRecord {
  kind: WriteTool;
  target: string;
  /** Canonical JSON of the arguments. */
  args: string;
  key: string | null;
}

export interface RefusalRecord extends WriteRecord {
  reason: RefusalReason;
}

export interface ShopCall {
  result: ToolResult;
  /** The shop committed a write in this call (false for reads, refusals and key replays). */
  committed: boolean;
  /** The key was seen before: the first result came back and nothing changed. */
  replayed: boolean;
}

export type ShopSnapshot = Record<(typeof STATE_TABLES)[number], string[]>;

class Refused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** The tables the checker reads after a run: the business state and the two logs. */
const READ_TABLES = [...STATE_TABLES, 'write_log', 'refusal_log'] as const;
type ReadTable = (typeof READ_TABLES)[number];
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
 * The tables each read tool's queries look at (see `perform`, and `customer` and `order`): a read
 * is answered from an earlier identical read while none of them has changed.
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

export class Shop {
  private readonly statements: Map<string, Database.Statement> = new Map();
  /** What `remember` noted: each read table's rows, and SQLite's count of changes at that moment. */
  private remembered: { rows: Map<ReadTable, readonly unknown[]>; totalChanges: number; reads: Map<string, string> } | null = null;
  /** Rows changed by this shop's own statements since `remember` or `restored`, and their tables. */
  private ownChanges = 0;
  private totalChangesStatement: Database.Statement | null = null;
  private readonly touched = new Set<string>();
  private readonly callInTransaction: (tool: ToolName, args: Record<string, unknown>, key: string | null) => ShopCall;

  private constructor(readonly db: Database.Database) {
    this.callInTransaction = db.transaction((tool, args, key) => this.callUnsafe(tool, args, key));
  }

  /** A new shop holding the scenario's starting rows, in memory or in the named file. */
  static create(rows: ShopRows, filename = ':memory:'): Shop {
    const db = new Database(filename);
    if (filename !== ':memory:') {
      // WAL with synchronous=NORMAL survives a process kill (not a power cut), as the chapter's shop did.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.exec(SCHEMA);
    const shop = new Shop(db);
    db.transaction(() => shop.seed(rows))();
    return shop;
  }

  /** Reopens a shop file that an earlier process left behind. */
  static open(filename: string): Shop {
    const db = new Database(filename, { fileMustExist: true });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return new Shop(db);
  }

  close(): void {
    this.db.close();
  }

  /** Runs one tool call as one transaction. */
  call(tool: ToolName, args: Record<string, unknown>, key: string | null = null): ShopCall {
    const remembered = this.remembered;
    const reads = Object.hasOwn(READ_DEPENDS_ON, tool) ? READ_DEPENDS_ON[tool as ReadTool] : undefined;
    if (remembered === null || reads === undefined) return this.callInTransaction(tool, args, isWriteTool(tool) ? key : null);
    // A read of tables still as `remember` noted them gives what it gave then (a read changes nothing).
    const argsKey = stringArgsKey(args);
    const unchanged = argsKey !== null && reads.every((t) => !this.touched.has(t)) && this.onlyOwnChanges();
    const cacheKey = `${tool}\u0000${argsKey}`;
    if (unchanged) {
      const seen = remembered.reads.get(cacheKey);
      if (seen !== undefined) return { result: JSON.parse(seen) as ToolResult, committed: false, replayed: false };
    }
    const call = this.callInTransaction(tool, args, null);
    if (unchanged) remembered.reads.set(cacheKey, JSON.stringify(call.result));
    return call;
  }

  writeLog(): WriteRecord[] {
    return this.read('write_log', this.onlyOwnChanges()).map((r) => ({ ...(r as WriteRecord) }));
  }

  refusalLog(): RefusalRecord[] {
    return this.read('refusal_log', this.onlyOwnChanges()).map((r) => ({ ...(r as RefusalRecord) }));
  }

  snapshot(): ShopSnapshot {
    const snapshot = {} as ShopSnapshot;
    const onlyOwn = this.onlyOwnChanges();
    for (const table of STATE_TABLES) snapshot[table] = [...(this.read(table, onlyOwn) as string[])];
    return snapshot;
  }

  /**
   * Notes the rows now held in the tables the checker reads, so that later reads of a table
   * nothing has changed since are answered without a query. A simulated run reads them all after
   * every kill-and-resume, and most runs change one or two tables, or none.
   */
  remember(): void {
    const rows = new Map<ReadTable, readonly unknown[]>();
    for (const table of READ_TABLES) rows.set(table, this.query(table));
    this.remembered = { rows, totalChanges: this.totalChanges(), reads: new Map() };
    this.ownChanges = 0;
    this.touched.clear();
  }

  /** The caller has brought the rows back to what `remember` noted (by rolling back everything since). */
  restored(): void {
    if (this.remembered === null) throw new Error('shop: restored() without remember()');
    this.remembered.totalChanges = this.totalChanges();
    this.ownChanges = 0;
    this.touched.clear();
  }

  /**
   * Every change this connection made since `remember` or `restored` (SQLite's total_changes; an
   * in-memory database has no other connection) is one of this shop's own statements, whose
   * tables are known.
   */
  private onlyOwnChanges(): boolean {
    if (this.remembered === null || this.touched.has(ANY_TABLE)) return false;
    return this.totalChanges() - this.remembered.totalChanges === this.ownChanges;
  }

  /** A table's rows: what `remember` noted when only own changes were made and none touched it; else a query. */
  private read(table: ReadTable, onlyOwnChanges: boolean): readonly unknown[] {
    if (onlyOwnChanges && !this.touched.has(table)) return this.remembered!.rows.get(table)!;
    return this.query(table);
  }

  private query(table: ReadTable): unknown[] {
    if (table === 'write_log') return this.all('SELECT kind, target, args, key FROM write_log ORDER BY seq');
    if (table === 'refusal_log') return this.all('SELECT kind, target, args, key, reason FROM refusal_log ORDER BY seq');
    return this.all<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY rowid`).map((row) => JSON.stringify(row));
  }

  private totalChanges(): number {
    this.totalChangesStatement ??= this.db.prepare('SELECT total_changes()').pluck();
    return this.totalChangesStatement.get() as number;
  }

  private seed(rows: ShopRows): void {
    for (const c of rows.customers) this.run('INSERT INTO customers VALUES (?, ?, ?, ?)', c.id, c.name, c.email, c.address);
    for (const o of rows.orders) {
      this.run('INSERT INTO orders VALUES (?, ?, ?)', o.id, o.customerId, o.status);
      for (const l of o.lines) this.run('INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)', o.id, l.lineId, l.item, l.quantity, l.priceCents);
    }
    for (const r of rows.refunds) this.run('INSERT INTO refunds (order_id, line_id, amount_cents) VALUES (?, ?, ?)', r.orderId, r.lineId, r.amountCents);
  }

  private callUnsafe(tool: ToolName, args: Record<string, unknown>, key: string | null): ShopCall {
    if (key !== null) {
      const seen = this.get<{ result: string }>('SELECT result FROM idempotency_keys WHERE key = ?', key);
      if (seen) return { result: JSON.parse(seen.result) as ToolResult, committed: false, replayed: true };
    }
    let result: ToolResult;
    let committed = false;
    try {
      const problem = argsProblem(tool, args);
      if (problem !== null) throw new Refused('bad-arguments', `${problem.arg}: expected ${problem.expected}`);
      result = { ok: true, ...this.perform(tool, args) };
      if (isWriteTool(tool)) {
        this.run('INSERT INTO write_log (kind, target, args, key) VALUES (?, ?, ?, ?)', tool, writeTarget(tool, args), canonicalJson(args), key);
        committed = true;
      }
    } catch (error) {
      if (!(error instanceof Refused)) throw error;
      result = { ok: false, refused: error.reason, message: error.message };
      if (isWriteTool(tool)) {
        this.run('INSERT INTO refusal_log (kind, target, args, key, reason) VALUES (?, ?, ?, ?, ?)',
          tool, writeTarget(tool, args), canonicalJson(args), key, error.reason);
      }
    }
    if (key !== null) this.run('INSERT INTO idempotency_keys VALUES (?, ?)', key, JSON.stringify(result));
    return { result, committed, replayed: false };
  }

  private perform(tool: ToolName, a: Record<string, unknown>): Record<string, unknown> {
    switch (tool) {
      case 'find_customer': {
        const c = this.get<Record<string, unknown>>('SELECT id, name, email, address FROM customers WHERE email = ?', a.email);
        if (!c) throw new Refused('unknown-customer', `no customer with email ${String(a.email)}`);
        return { customer: c };
      }
      case 'list_orders': {
        this.customer(a.customerId);
        const orders = this.all(
          `SELECT o.id, o.status, COALESCE(SUM(l.quantity * l.price_cents), 0) AS totalCents
           FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id WHERE o.customer_id = ? GROUP BY o.id ORDER BY o.id`,
          a.customerId,
        );
        return { orders };
      }
      case 'get_order': {
        const order = this.order(a.orderId);
        const lines = this.all(
          `SELECT l.line_id AS lineId, l.item, l.quantity, l.price_cents AS priceCents,
             (SELECT COALESCE(SUM(amount_cents), 0) FROM refunds r WHERE r.order_id = l.order_id AND r.line_id = l.line_id) AS refundedCents
           FROM order_lines l WHERE l.order_id = ? ORDER BY l.line_id`,
          a.orderId,
        );
        return { order: { ...order, lines } };
      }
      case 'list_refunds': {
        this.order(a.orderId);
        const refunds = this.all('SELECT id AS refundId, line_id AS lineId, amount_cents AS amountCents FROM refunds WHERE order_id = ? ORDER BY id', a.orderId);
        return { refunds };
      }
      case 'refund': {
        this.order(a.orderId);
        const line = this.get<{ total: number; refunded: number }>(
          `SELECT l.quantity * l.price_cents AS total,
             (SELECT COALESCE(SUM(amount_cents), 0) FROM refunds r WHERE r.order_id = l.order_id AND r.line_id = l.line_id) AS refunded
           FROM order_lines l WHERE l.order_id = ? AND l.line_id = ?`,
          a.orderId,
          a.lineId,
        );
        if (!line) throw new Refused('unknown-line', `order ${String(a.orderId)} has no line ${String(a.lineId)}`);
        const leftCents = line.total - line.refunded;
        const amountCents = a.amountCents as number;
        if (amountCents > leftCents) {
          throw new Refused('over-refund', `refund of ${amountCents} cents is more than the ${leftCents} cents left to refund`);
        }
        const info = this.run('INSERT INTO refunds (order_id, line_id, amount_cents) VALUES (?, ?, ?)', a.orderId, a.lineId, amountCents);
        return { refundId: Number(info.lastInsertRowid), amountCents, leftCents: leftCents - amountCents };
      }
      case 'cancel_order': {
        const order = this.order(a.orderId);
        if (order.status === 'cancelled') throw new Refused('already-cancelled', `order ${String(a.orderId)} is already cancelled`);
        this.run("UPDATE orders SET status = 'cancelled' WHERE id = ?", a.orderId);
        const info = this.run('INSERT INTO cancellations (order_id) VALUES (?)', a.orderId);
        return { cancellationId: Number(info.lastInsertRowid), orderId: a.orderId, status: 'cancelled' };
      }
      case 'change_address': {
        this.customer(a.customerId);
        this.run('UPDATE customers SET address = ? WHERE id = ?', a.address, a.customerId);
        this.run('INSERT INTO address_changes (customer_id, address) VALUES (?, ?)', a.customerId, a.address);
        return { customerId: a.customerId, address: a.address };
      }
      case 'send_email': {
        this.customer(a.customerId);
        const info = this.run('INSERT INTO emails (customer_id, subject, body) VALUES (?, ?, ?)', a.customerId, a.subject, a.body);
        return { emailId: Number(info.lastInsertRowid) };
      }
      case 'hand_off': {
        this.customer(a.customerId);
        const info = this.run('INSERT INTO handoffs (customer_id, reason) VALUES (?, ?)', a.customerId, a.reason);
        return { ticketId: Number(info.lastInsertRowid) };
      }
    }
  }

  private customer(id: unknown): void {
    if (!this.get('SELECT 1 FROM customers WHERE id = ?', id)) throw new Refused('unknown-customer', `no customer ${String(id)}`);
  }

  private order(id: unknown): { id: string; customerId: string; status: string } {
    const order = this.get<{ id: string; customerId: string; status: string }>(
      'SELECT id, customer_id AS customerId, status FROM orders WHERE id = ?',
      id,
    );
    if (!order) throw new Refused('unknown-order', `no order ${String(id)}`);
    return order;
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private run(sql: string, ...params: unknown[]): Database.RunResult {
    this.touched.add(tableWritten(sql));
    const info = this.statement(sql).run(...params);
    this.ownChanges += info.changes;
    return info;
  }

  private get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  private all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }
}
