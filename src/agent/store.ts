// The agent's store: a SQLite file in the run's state folder where its writes happen, with the
// write log killpoint reads (write_log(kind, target, args, key), one row per committed write) and a
// key table. A write runs in one transaction with its log row and its key: they commit together or
// not at all, so the log says exactly what the world saw. Right after the commit the store records
// a shop-commit event: the first moment of the gap, where a kill makes a resume send the write again.

import Database from 'better-sqlite3';
import { canonicalJson } from '../model/canonical-json.js';
import { AgentUsageError } from './usage-error.js';

export interface WriteSpec {
  /** What the write does, e.g. "refund". */
  kind: string;
  /** What it changes, e.g. "O-1042/L1": two writes of one kind and target with the same args are the same write. */
  target: string;
  args: Record<string, unknown>;
  /** The idempotency key: from the run and the step (see idempotencyKey), never a fresh random id. */
  key?: string | null;
  /** The step (tool call) that sends it, named in the shop-commit event. */
  callId?: string;
}

const REFUSED = Symbol('killpoint refusal');

/** What a write's action returns when the store's rules refuse it: nothing is written or logged. */
export interface Refusal {
  readonly [REFUSED]: true;
  readonly refused: string;
}

export function refuse(reason: string): Refusal {
  if (typeof reason !== 'string' || reason === '') throw new AgentUsageError('refuse()', 'expected the reason as a non-empty string, e.g. "over-refund"');
  return { [REFUSED]: true, refused: reason };
}

function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && REFUSED in value;
}

export type WriteResult<T> =
  /** Done now: the action ran and its log row committed with it. */
  | { status: 'committed'; result: T }
  /** The key was seen before: the first result comes back and nothing is written again. */
  | { status: 'repeat'; result: T }
  | { status: 'refused'; reason: string };

/** The key of a write: the run and the step. The same in every life, so a repeat is recognised. */
export function idempotencyKey(runId: string, stepId: string): string {
  if (typeof runId !== 'string' || runId === '') throw new AgentUsageError('idempotencyKey()', 'expected the run id as a non-empty string');
  if (typeof stepId !== 'string' || stepId === '') throw new AgentUsageError('idempotencyKey()', 'expected the step id (the tool call id) as a non-empty string');
  return `${runId}:${stepId}`;
}

export class AgentStore {
  /** The database, for the agent's own tables (create them in setup(); read them freely). */
  readonly db: Database.Database;

  constructor(
    path: string,
    private readonly onEvent: (kind: string, detail: Record<string, unknown>) => void,
  ) {
    this.db = new Database(path);
    // WAL with synchronous=NORMAL: a commit survives the process's death (not the machine's),
    // which is the failure killpoint injects.
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS write_log (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, target TEXT NOT NULL, args TEXT NOT NULL, key TEXT);
      CREATE TABLE IF NOT EXISTS idempotency_keys (key TEXT PRIMARY KEY, result TEXT NOT NULL);
    `);
  }

  /** Runs `create` once per run (the first life), in one transaction: the agent's tables and rows. */
  setup(create: (db: Database.Database) => void): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS killpoint_setup (done INTEGER NOT NULL)');
    this.db.transaction(() => {
      if (this.db.prepare('SELECT 1 FROM killpoint_setup').get() !== undefined) return;
      create(this.db);
      this.db.prepare('INSERT INTO killpoint_setup VALUES (1)').run();
    })();
  }

  /**
   * One write: `act` changes the agent's tables and returns its result (JSON-serialisable when a key
   * is given, since the key table keeps it), or refuse(reason). With a key already seen, `act` does
   * not run and the first result comes back.
   */
  write<T>(spec: WriteSpec, act: (db: Database.Database) => T | Refusal): WriteResult<T> {
    const call = `write(${JSON.stringify(spec?.kind ?? null)})`;
    if (typeof spec !== 'object' || spec === null) throw new AgentUsageError('write()', 'expected { kind, target, args, key?, callId? }');
    if (typeof spec.kind !== 'string' || spec.kind.trim() === '') throw new AgentUsageError(call, 'expected a non-empty kind, such as "refund"');
    if (typeof spec.target !== 'string' || spec.target === '') throw new AgentUsageError(call, 'expected a non-empty target, such as "O-1042/L1"');
    if (typeof spec.args !== 'object' || spec.args === null || Array.isArray(spec.args)) throw new AgentUsageError(call, 'expected args as a plain object');
    if (spec.key !== undefined && spec.key !== null && (typeof spec.key !== 'string' || spec.key === '')) throw new AgentUsageError(call, 'expected the key as a non-empty string, or none');
    if (typeof act !== 'function') throw new AgentUsageError(call, 'expected the action as a function (db) => result');
    const key = spec.key ?? null;
    const args = canonicalJson(spec.args);

    const outcome = this.db.transaction((): WriteResult<T> => {
      if (key !== null) {
        const seen = this.db.prepare('SELECT result FROM idempotency_keys WHERE key = ?').get(key) as { result: string } | undefined;
        if (seen !== undefined) return { status: 'repeat', result: JSON.parse(seen.result) as T };
      }
      const result = act(this.db);
      if (isRefusal(result)) return { status: 'refused', reason: result.refused };
      this.db.prepare('INSERT INTO write_log (kind, target, args, key) VALUES (?, ?, ?, ?)').run(spec.kind, spec.target, args, key);
      if (key !== null) {
        const stored = JSON.stringify(result);
        if (stored === undefined) throw new AgentUsageError(call, 'a keyed write must return a JSON value (the key table keeps it for repeats)');
        this.db.prepare('INSERT INTO idempotency_keys (key, result) VALUES (?, ?)').run(key, stored);
      }
      return { status: 'committed', result };
    })();
    if (outcome.status === 'committed') this.onEvent('shop-commit', { tool: spec.kind, callId: spec.callId ?? spec.target, ...(key === null ? {} : { key }) });
    return outcome;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
