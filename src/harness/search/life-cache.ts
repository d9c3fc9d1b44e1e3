// The lives the explorer by equivalence has run (equivalence.ts), found again by what a new start
// reads: a life is kept by the system's key for its start (the durable state's digest, the life
// number where it is read) and the interleaving picks it consumed; a later start with the same key
// and the same picks up to that many reuses it.
//
// Systems with join points (SessionLives.runHead) share more. A join point is a moment where a life
// keeps nothing in memory that its stores do not, so from there it goes on exactly as a life
// started from its state there would:
// - a life run to its end says where its join points were (LifeRun.joinPoints); each is kept as
//   the start of a life too, the rest of that one, so a recovery from a state a life passed a join
//   point in runs nothing at all;
// - a recovery from any other state runs only up to its first join point (a head), and goes on as
//   the life found for the state there (or, the first time, a life run from there to its end).
// The explorer sees a head and the life it goes on as as one life (a Life: heads, then the rest of
// a life run to its end, from its start or from one of its join points).

import type { RunEvent } from '../check/events.js';
import type { LifeRecord } from '../check/outcome.js';
import type { DurableState, LifeHead, LifeRun, LifeStart, SessionLives } from '../engine.js';
import { MAX_EVENTS_PER_LIFE, runawayError } from '../life-loop.js';
import type { LifePlan } from './life-plan.js';
import type { Tally } from './prefix-tally.js';

/** A life that ran (to its end, or to its first join point), kept for every start that reads the same. */
export interface Node {
  id: number;
  start: LifeStart;
  /** Exactly one of the two: the life run to its end, or its head. */
  run: LifeRun | null;
  head: LifeHead | null;
  /** A process tier's life whose kill points have been suffered (SessionLives.cutEvery). */
  cut: boolean;
  /** Of a life run to its end: where a life may begin in it, 0 and right after each join point, in order. */
  entries: number[];
  /** The lives that begin in this node, by where and the picks they were given. */
  lives: Map<string, Life>;
  /** A node run to its end, as the last life of a schedule: verdicts by what they read (equivalence.ts). */
  judged: Map<string, unknown>;
  /** Exit tallies of its rest from each entry, by the tally there (equivalence.ts: exitOf). */
  exits: Map<string, Tally>;
}

/** A start found again: a node, where in it the life begins, and what that life consumes of its picks. */
interface Entry {
  node: Node;
  /** Events of the node before the life's first, and picks it had taken by then. */
  from: number;
  picksBefore: number;
  /** The picks of its start that the life consumed; `pastEnd`: it also found them run out. */
  consumed: readonly number[];
  pastEnd: boolean;
}

/** A life as a schedule sees it: heads, each going on as the next, then the rest of a life run to its end. */
export interface Life {
  /** One number per life object. */
  id: number;
  node: Node;
  /** As its Entry: 0 and 0 but for a life that begins at a join point of its node. */
  from: number;
  picksBefore: number;
  /** Its start: the state (of the digest the node's entry has), life number and picks given. */
  start: LifeStart;
  /** Null for the rest of a node run to its end; for a head, set once the life it joins is known. */
  rest: Life | null;
  /** Events in all (known once the chain is resolved). */
  length: number;
  /** The node run to its end that the chain ends in. */
  terminal: Node;
  /** Tallies along its events, by the tally it was entered with. */
  tallies: Map<string, Tally[]>;
  /** Its exit tally, by the tally it was entered with (equivalence.ts: exitOf; the pieces keep the rest). */
  exits: Map<number, Tally>;
  /** The life after a kill at each of its events (k + 1), by the life number it is given. */
  children: Map<number, { starts: LifeStart[]; lives: Life[] }>;
  /** A life run again whole (LifeCache.runWhole), once asked for. */
  whole: LifeRun | null;
}

/** A stretch of a life's events, as tallies walk them: where a walk's exit tally is kept. */
export interface Piece {
  events: readonly RunEvent[];
  start: number;
  end: number;
  memo: Map<string, Tally>;
  /** Names the piece within its memo. */
  memoKey: string;
}

function consumedFrom(picks: readonly number[], taken: readonly number[]): { consumed: readonly number[]; pastEnd: boolean } {
  return { consumed: picks.slice(0, Math.min(taken.length, picks.length)), pastEnd: taken.length > picks.length };
}

/** The lives of a chain, first to the rest of a node run to its end. */
function chain(life: Life): Life[] {
  const out: Life[] = [];
  for (let l: Life | null = life; l !== null; l = l.rest) out.push(l);
  return out;
}

/**
 * The life's events in order, split at the join points of each node, each stretch with where the
 * exit tally of the rest of the life from there is kept: on the node, by where the stretch begins
 * and the life the node goes on as (a head's rest depends on the picks it was given).
 */
export function* pieces(life: Life): Generator<Piece> {
  for (const l of chain(life)) {
    const { entries } = l.node;
    const events = l.node.head !== null ? l.node.head.events : l.node.run!.record.events;
    const rest = l.rest === null ? '-' : String(l.rest.id);
    for (let i = entries.indexOf(l.from); i < entries.length; i++) yield { events, start: entries[i]!, end: entries[i + 1] ?? events.length, memo: l.node.exits, memoKey: `${entries[i]}|${rest}|` };
  }
}

/**
 * The life's events: of a life that is not a node run from its start, those of the whole life run
 * again from its start (its numbers and virtual times are its own only that way), made on demand.
 */
export function lifeEvents(life: Life, cache: LifeCache): RunEvent[] {
  return lifeRecord(life, cache).events;
}

/** The life's record, ended as its terminal node ended; run again whole unless it is a node run from its start. */
export function lifeRecord(life: Life, cache: LifeCache): LifeRecord {
  if (life.rest === null && life.from === 0) return life.node.run!.record;
  return cache.runWhole(life).record;
}

/** What a life takes of each of its nodes: the node's own run or head, from event `from` and pick `picksBefore` on. */
function* stretches(life: Life): Generator<{ own: LifeRun | LifeHead; from: number; events: number; picksBefore: number }> {
  for (const l of chain(life)) {
    const own = l.node.head ?? l.node.run!;
    const events = l.node.head !== null ? l.node.head.events.length : l.node.run!.record.events.length;
    yield { own, from: l.from, events: events - l.from, picksBefore: l.picksBefore };
  }
}

/** Every pick the life took and how many calls each chose among. */
export function lifePicks(life: Life): { picks: number[]; widths: number[] } {
  const picks: number[] = [];
  const widths: number[] = [];
  for (const { own, picksBefore } of stretches(life)) {
    picks.push(...own.picks.slice(picksBefore));
    widths.push(...own.widths.slice(picksBefore));
  }
  return { picks, widths };
}

/** What a kill right after each event k of the life leaves (k = -1 first), in order; from event `fromK` on when given. */
export function* afterEach(life: Life, fromK = -1): Generator<{ k: number; state: DurableState; picksTaken: number }> {
  if (fromK < 0) yield { k: -1, state: life.start.state, picksTaken: 0 };
  let offset = 0;
  let picksBefore = 0;
  for (const s of stretches(life)) {
    for (let k = Math.max(0, fromK - offset); k < s.events; k++) {
      const after = s.own.after(s.from + k);
      yield { k: offset + k, state: after.state, picksTaken: picksBefore + after.picksTaken - s.picksBefore };
    }
    offset += s.events;
    picksBefore += s.own.picks.length - s.picksBefore;
  }
}

/** The state and picks a kill right after event k of the life leaves. */
export function lifeAfter(life: Life, k: number): { state: DurableState; picksTaken: number } {
  for (const after of afterEach(life, k)) return after;
  throw new Error(`no event ${k} in a life of ${life.length} events`);
}

export class LifeCache {
  private readonly byKey = new Map<string, Entry[]>();
  livesRun = 0;
  eventsRun = 0;
  /** Heads among the lives run (each stopped at a join point). */
  headsRun = 0;
  /** Lives found at a join point of a life run before: nothing of them ran. */
  livesAtJoinPoints = 0;
  private livesMade = 0;

  constructor(
    private readonly lives: SessionLives,
    /** The system's lives have join points (runHead, in process): lives begin at them, heads stop at them. */
    readonly joins: boolean,
  ) {}

  /**
   * A life run again whole from its start to its end: the events its verdict and report show.
   * Only in-process systems have join points, so this answers at once.
   */
  runWhole(life: Life): LifeRun {
    if (life.whole !== null) return life.whole;
    const run = this.lives.runLife(life.start);
    if (run instanceof Promise) throw new Error('a life with join points must run in process');
    // Run, so counted: the figures say what the exploration cost.
    this.livesRun++;
    this.eventsRun += run.record.events.length;
    life.whole = run; // kept: no more than the runs made cost, and the baseline's is asked for by every verdict
    return run;
  }

  /** Distinct keys of the starts lives were asked for (not of the join points that begin lives). */
  private readonly startKeys = new Set<string>();

  get distinctKeys(): number {
    return this.startKeys.size;
  }

  private find(start: LifeStart): Entry | undefined {
    for (const entry of this.byKey.get(this.lives.key(start)) ?? []) {
      if (entry.pastEnd ? start.picks.length !== entry.consumed.length : start.picks.length < entry.consumed.length) continue;
      let same = true;
      for (let i = 0; i < entry.consumed.length && same; i++) same = entry.consumed[i] === start.picks[i];
      if (same) return entry;
    }
    return undefined;
  }

  /** Two starts surely read the same before either has run: the same key and the same picks. */
  private sameRead(a: LifeStart, b: LifeStart): boolean {
    return this.lives.key(a) === this.lives.key(b) && a.picks.length === b.picks.length && a.picks.every((p, i) => p === b.picks[i]);
  }

  /** Stop a life from `start` at a join point whose state a life already explored begins at, with the picks left. */
  private stopAt(start: LifeStart): (state: DurableState, picksTaken: number) => boolean {
    return (state, picksTaken) => this.find({ state, lifeIndex: start.lifeIndex, picks: start.picks.slice(Math.min(picksTaken, start.picks.length)) }) !== undefined;
  }

  private keep(key: string, entry: Entry): void {
    const entries = this.byKey.get(key);
    if (entries === undefined) this.byKey.set(key, [entry]);
    else entries.push(entry);
  }

  private add(start: LifeStart, ran: LifeRun | LifeHead): Entry {
    const head = 'joins' in ran ? ran : null;
    const run = 'joins' in ran ? null : ran;
    this.eventsRun += head !== null ? head.events.length : run!.record.events.length;
    if (head !== null) this.headsRun++;
    const node: Node = { id: this.livesRun++, start, run, head, cut: false, entries: [0], lives: new Map(), judged: new Map(), exits: new Map() };
    const { consumed, pastEnd } = consumedFrom(start.picks, ran.picks);
    const entry: Entry = { node, from: 0, picksBefore: 0, consumed, pastEnd };
    this.keep(this.lives.key(start), entry);
    // Each join point it passed begins a life too: the rest of this one.
    for (const k of this.joins ? (ran.joinPoints ?? []) : []) {
      const after = ran.after(k);
      node.entries.push(k + 1);
      const at = Math.min(after.picksTaken, consumed.length);
      this.keep(this.lives.key({ state: after.state, lifeIndex: start.lifeIndex, picks: [] }), { node, from: k + 1, picksBefore: after.picksTaken, consumed: consumed.slice(at), pastEnd });
    }
    return entry;
  }

  /** The life of this entry, given this start (one object per node, entry and picks). */
  private lifeOf(entry: Entry, start: LifeStart): Life {
    const memo = `${entry.from}|${start.picks.join(',')}`;
    let life = entry.node.lives.get(memo);
    if (life === undefined) {
      const { node, from, picksBefore } = entry;
      life = { id: this.livesMade++, node, from, picksBefore, start, rest: null, length: node.run !== null ? node.run.record.events.length - from : -1, terminal: node, tallies: new Map(), exits: new Map(), children: new Map(), whole: null };
      node.lives.set(memo, life);
      if (from > 0) this.livesAtJoinPoints++;
    }
    return life;
  }

  /**
   * Lives for these starts: those already run (or begun at a join point of one) are reused, the
   * others asked for in one batch (as heads where the system has join points); then each head's
   * chain is followed to a life run to its end.
   */
  *livesFor(starts: readonly LifeStart[]): LifePlan<Life[]> {
    const entries = yield* this.entriesFor(starts);
    const found = entries.map((e, i) => this.lifeOf(e, starts[i]!));
    for (const [i, life] of found.entries()) if (life.length < 0) yield* this.resolve(life, starts[i]!.lifeIndex);
    return found;
  }

  private *entriesFor(starts: readonly LifeStart[]): LifePlan<Entry[]> {
    for (const s of starts) this.startKeys.add(this.lives.key(s));
    const found = starts.map((s) => this.find(s));
    const missing: number[] = [];
    const asked: LifeStart[] = [];
    for (const [i, entry] of found.entries()) {
      if (entry !== undefined) continue;
      // Two starts of this batch may read the same: ask once (the first), then find it for the rest.
      if (asked.some((a) => this.sameRead(a, starts[i]!))) continue;
      missing.push(i);
      asked.push(starts[i]!);
    }
    if (asked.length > 0) {
      const runs = yield asked.map((start) => (this.joins ? { head: start, stopAt: this.stopAt(start) } : start));
      for (const [j, i] of missing.entries()) this.add(starts[i]!, runs[j]!);
    }
    return starts.map((s, i) => found[i] ?? this.find(s)!);
  }

  /**
   * Follows a head's chain (heads found again may join further heads) to the rest of a life run to
   * its end, run from the join the first time; then numbers each life of the chain with its length
   * and terminal.
   */
  private *resolve(first: Life, lifeIndex: number): LifePlan<void> {
    const heads: Life[] = [];
    const inChain = new Set<Life>();
    let events = 0;
    let life = first;
    while (life.length < 0) {
      if (inChain.has(life)) throw new Error(`life ${lifeIndex}: it joins a state it has already been in and would go on for ever (a runaway loop)`);
      inChain.add(life);
      heads.push(life);
      const head = life.node.head!;
      events += head.events.length - life.from;
      if (events > MAX_EVENTS_PER_LIFE) throw runawayError(lifeIndex);
      const taken = head.picks.length - life.picksBefore;
      const start: LifeStart = { state: head.joins, lifeIndex, picks: life.start.picks.slice(Math.min(taken, life.start.picks.length)) };
      const [entry] = yield* this.entriesFor([start]);
      life.rest = this.lifeOf(entry!, start);
      life = life.rest;
    }
    if (events + life.length > MAX_EVENTS_PER_LIFE) throw runawayError(lifeIndex);
    for (let i = heads.length - 1; i >= 0; i--) {
      const l = heads[i]!;
      l.length = l.node.head!.events.length - l.from + l.rest!.length;
      l.terminal = l.rest!.terminal;
    }
  }
}
