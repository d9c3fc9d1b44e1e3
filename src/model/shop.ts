// The shop: Lantern Outfitters' system of record on SQLite. It survives every kill of the agent,
// so whatever it commits stays committed. Each tool call is one transaction; the rules a real
// shop enforces (no refund above what is left, no second cancellation, unknown ids refused) and
// the idempotency check (a key runs once) are decided inside that same transaction.
//
// Only the shop's rules live here. Speed is the caller's business: the simulated tier reads a
// reused shop back after every one of thousands of runs a second, and answers the reads nothing
// has changed from memory in a subclass of its own (src/harness/engines/scripted/shop-read-cache.ts),
// which is why the constructor and `tableRows` are protected rather than private, and why every
// write is reported to `wrote`.

import Database from 'better-sqlite3';
import type { ShopRows } from './scenario.js';
import { argsProblem, isWriteTool, writeTarget, type RefusalReason, type ToolName, type ToolResult, type WriteTool } from './tools.js';
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

/** A table the checker reads after a run: the business state, or one of the two logs. */
export type ReadTable = (typeof STATE_TABLES)[number] | 'write_log' | 'refusal_log';

/** The tables whose rows `writeLog` and `refusalLog` read. */
const WRITE_LOG = ['write_log'] as const;
const REFUSAL_LOG = ['refusal_log'] as const;

export class Shop {
  private readonly statements: Map<string, Database.Statement> = new Map();
  private readonly callInTransaction: (tool: ToolName, args: Record<string, unknown>, key: string | null) => ShopCall;

  /**
   * Protected, not private, for one reason: the simulated tier keeps a shop open across runs and
   * answers reads that nothing has changed from memory, which is a subclass's job (it is told of
   * writes by `wrote` and answers `tableRows` and `call`). Everyone else gets a shop from `create`
   * or `open`.
   */
  protected constructor(readonly db: Database.Database) {
    this.callInTransaction = db.transaction((tool, args, key) => this.callUnsafe(tool, args, key));
  }

  /** A new shop holding the scenario's starting rows, in memory or in the named file. */
  static create(rows: ShopRows, filename = ':memory:'): Shop {
    return new Shop(Shop.seededDatabase(rows, filename));
  }

  /** Reopens a shop file that an earlier process left behind. */
  static open(filename: string): Shop {
    const db = new Database(filename, { fileMustExist: true });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    return new Shop(db);
  }

  /** A new database with the schema and the scenario's starting rows: what `create` opens a shop on (and a subclass, its own). */
  protected static seededDatabase(rows: ShopRows, filename: string): Database.Database {
    const db = new Database(filename);
    if (filename !== ':memory:') {
      // WAL with synchronous=NORMAL survives a process kill (not a power cut), as the chapter's shop did.
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.exec(SCHEMA);
    db.transaction(() => seed(db, rows))();
    return db;
  }

  close(): void {
    this.db.close();
  }

  /** Runs one tool call as one transaction. */
  call(tool: ToolName, args: Record<string, unknown>, key: string | null = null): ShopCall {
    return this.callInTransaction(tool, args, isWriteTool(tool) ? key : null);
  }

  writeLog(): WriteRecord[] {
    return this.tableRows(WRITE_LOG)[0]!.map((r) => ({ ...(r as WriteRecord) }));
  }

  refusalLog(): RefusalRecord[] {
    return this.tableRows(REFUSAL_LOG)[0]!.map((r) => ({ ...(r as RefusalRecord) }));
  }

  snapshot(): ShopSnapshot {
    const snapshot = {} as ShopSnapshot;
    const rows = this.tableRows(STATE_TABLES);
    for (let i = 0; i < STATE_TABLES.length; i++) snapshot[STATE_TABLES[i]!] = [...(rows[i] as string[])];
    return snapshot;
  }

  /**
   * The rows of whole tables, in the order asked: the logs' rows as records, a state table's rows
   * as JSON text. Every whole-table read goes through here, so that a subclass may answer from
   * rows it noted earlier when it knows they are still the rows held. Callers copy what they get.
   */
  protected tableRows(tables: readonly ReadTable[]): (readonly unknown[])[] {
    return tables.map((table) => this.query(table));
  }

  private query(table: ReadTable): unknown[] {
    if (table === 'write_log') return this.all('SELECT kind, target, args, key FROM write_log ORDER BY seq');
    if (table === 'refusal_log') return this.all('SELECT kind, target, args, key, reason FROM refusal_log ORDER BY seq');
    return this.all<Record<string, unknown>>(`SELECT * FROM ${table} ORDER BY rowid`).map((row) => JSON.stringify(row));
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
    const info = this.statement(sql).run(...params);
    this.wrote(sql, info.changes);
    return info;
  }

  /**
   * Told of every write statement after it ran, with the rows it changed; does nothing here. A
   * subclass that answers reads from memory learns here which tables changed.
   */
  protected wrote(_sql: string, _changes: number): void {}

  private get<T>(sql: string, ...params: unknown[]): T | undefined {
    return this.statement(sql).get(...params) as T | undefined;
  }

  private all<T = Record<string, unknown>>(sql: string, ...params: unknown[]): T[] {
    return this.statement(sql).all(...params) as T[];
  }
}

function seed(db: Database.Database, rows: ShopRows): void {
  const customer = db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?)');
  const order = db.prepare('INSERT INTO orders VALUES (?, ?, ?)');
  const line = db.prepare('INSERT INTO order_lines VALUES (?, ?, ?, ?, ?)');
  const refund = db.prepare('INSERT INTO refunds (order_id, line_id, amount_cents) VALUES (?, ?, ?)');
  for (const c of rows.customers) customer.run(c.id, c.name, c.email, c.address);
  for (const o of rows.orders) {
    order.run(o.id, o.customerId, o.status);
    for (const l of o.lines) line.run(o.id, l.lineId, l.item, l.quantity, l.priceCents);
  }
  for (const r of rows.refunds) refund.run(r.orderId, r.lineId, r.amountCents);
}
