// The TypeScript side of the kill protocol, for an agent of the user's own: what killpoint told
// this life (its state folder, its number, its kill point), and the calls an agent makes to be
// checked: an event at each moment worth killing after, writes through the store, the answer
// through the outbox. A life that reaches its kill point dies there (SIGKILL, nothing after it
// runs), exactly as killpoint's own children do.
//
// It checks what it is given and says which call was wrong: an agent that reports nothing cannot
// be checked, so a silent mistake here would be a silent pass there.

import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV, EXIT_FAILED, EventSink } from '../harness/process/protocol.js';
import { AgentStore } from './store.js';
import { JsonJournal } from './journal.js';
import { AgentUsageError } from './usage-error.js';

/** Fields of an event that killpoint sets itself. */
const RESERVED_FIELDS = ['index', 'kind'];

export class AgentLife {
  /** The run's durable state: the same folder in every life of a run. */
  readonly stateDir: string;
  /** 0 for the first life, 1 for the first recovery, ... */
  readonly life: number;
  /** The event this life dies right after, or null when it runs to its end. */
  readonly killAfter: number | null;
  private readonly sink: EventSink;
  private nextIndex = 0;
  private store: AgentStore | null = null;

  private constructor(stateDir: string, life: number, killAfter: number | null, eventsPath: string) {
    this.stateDir = stateDir;
    this.life = life;
    this.killAfter = killAfter;
    this.sink = new EventSink(eventsPath, killAfter);
  }

  /** The life killpoint started, read from its environment; dies at once when the kill point is -1. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): AgentLife {
    const stateDir = env[ENV.stateDir];
    const events = env[ENV.events];
    if (!stateDir || !events) {
      throw new AgentUsageError('startLife()', `${ENV.stateDir} and ${ENV.events} are not set: this process was not started by killpoint (run it through killpoint's harness, its vitest integration, or set them yourself)`);
    }
    if (!existsSync(stateDir)) throw new AgentUsageError('startLife()', `${ENV.stateDir} is ${stateDir}, which does not exist`);
    const rawLife = env[ENV.life] ?? '0';
    const life = Number(rawLife);
    if (!/^\d+$/.test(rawLife) || !Number.isSafeInteger(life)) throw new AgentUsageError('startLife()', `${ENV.life}: expected a whole number >= 0, got "${rawLife}"`);
    const rawKill = env[ENV.killAfter] ?? '';
    const killAfter = rawKill === '' ? null : Number(rawKill);
    if (killAfter !== null && !(/^-?\d+$/.test(rawKill) && killAfter >= -1)) throw new AgentUsageError('startLife()', `${ENV.killAfter}: expected an integer >= -1 or nothing, got "${rawKill}"`);
    const life_ = new AgentLife(stateDir, life, killAfter, events);
    life_.sink.start();
    return life_;
  }

  /** A file in the run's state folder (it survives kills; nothing else does). */
  path(name: string): string {
    if (typeof name !== 'string' || name === '' || name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
      throw new AgentUsageError(`path(${JSON.stringify(name)})`, 'expected a plain file name inside the state folder');
    }
    return join(this.stateDir, name);
  }

  /**
   * Records one moment of the run; right after the kill point's event the process dies. Kinds
   * killpoint reads by name: tool-start, shop-commit, tool-result, journal-save, answer-delivered
   * (the store and the outbox write the last two of those for you); any other kind is kept as is.
   */
  event(kind: string, detail: Record<string, unknown> = {}): void {
    const call = `event(${JSON.stringify(kind)})`;
    if (typeof kind !== 'string' || kind.trim() === '') throw new AgentUsageError(call, 'expected a non-empty kind, such as "tool-start"');
    if (typeof detail !== 'object' || detail === null || Array.isArray(detail)) throw new AgentUsageError(call, 'expected the detail as a plain object');
    const reserved = RESERVED_FIELDS.find((f) => f in detail);
    if (reserved !== undefined) throw new AgentUsageError(call, `the detail may not set "${reserved}": killpoint numbers and names the event`);
    if (this.killAfter !== null && this.nextIndex > this.killAfter) {
      // Only reachable when the kill did not land (SIGKILL blocked by a wrapper, say): never go on as if it had.
      throw new AgentUsageError(call, `an event after the kill point (${this.killAfter}): this life should be dead`);
    }
    this.sink.emit({ ...detail, index: this.nextIndex++, kind });
  }

  /** How many events this life has recorded. */
  get events(): number {
    return this.nextIndex;
  }

  /**
   * The store where the agent's writes happen (shop.sqlite in the state folder, the file killpoint
   * reads its write log from). Open it once per life.
   */
  openStore(): AgentStore {
    this.store ??= new AgentStore(this.path('shop.sqlite'), (kind, detail) => this.event(kind, detail));
    return this.store;
  }

  /** A JSON file saved atomically (temp file, then rename), with a journal-write and a journal-save event. */
  journal<T>(name = 'journal.json'): JsonJournal<T> {
    return new JsonJournal<T>(this.path(name), (kind) => this.event(kind));
  }

  /** The answers already delivered in this run (by any life): a recovery must not deliver again. */
  delivered(): string[] {
    const outbox = this.path('outbox.jsonl');
    if (!existsSync(outbox)) return [];
    return readFileSync(outbox, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as { text: string }).text);
  }

  /** Gives the customer the answer: one line in the outbox (one write), then answer-delivered. */
  deliver(text: string, runId = 'run'): void {
    const call = 'deliver()';
    if (typeof text !== 'string' || text === '') throw new AgentUsageError(call, 'expected the answer as a non-empty string');
    if (typeof runId !== 'string' || runId === '') throw new AgentUsageError(call, 'expected the run id as a non-empty string');
    appendFileSync(this.path('outbox.jsonl'), `${JSON.stringify({ runId, text })}\n`);
    this.event('answer-delivered');
  }

  /**
   * Stops this life on an error it can name (a journal it cannot read, say): exit 3, the message on
   * stderr. killpoint reports it as a recovery that stopped, never as a pass.
   */
  fail(message: string): never {
    process.stderr.write(`${message}\n`);
    this.store?.close();
    process.exit(EXIT_FAILED);
  }

  /** Closes the store (call at the end of a life that finished). */
  close(): void {
    this.store?.close();
    this.store = null;
  }
}

/** The life killpoint started this process for (see AgentLife). */
export function startLife(env: NodeJS.ProcessEnv = process.env): AgentLife {
  return AgentLife.fromEnv(env);
}
