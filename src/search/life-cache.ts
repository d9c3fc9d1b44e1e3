// The lives the explorer by equivalence has run (equivalence.ts), found again by what a new start
// reads: a life is kept by the system's key for its start (the durable state's digest, the life
// number where it is read) and the interleaving picks it consumed; a later start with the same key
// and the same picks up to that many reuses it.
//
// A life that stopped at a join point (LifeByLife.runHead) is a head: from there it goes on as the
// life started from the state it reached, with the picks it has left. The explorer sees the two as
// one life (a Life: a chain of heads ending in a life run to its end), and several recoveries that
// reach the same state share everything after it: each runs only its own head.

import type { RunEvent } from '../check/events.js';
import type { Scenario } from '../model/scenario.js';
import type { LifeRecord } from '../check/outcome.js';
import type { DurableState, LifeByLife, LifeHead, LifeRun, LifeStart } from '../engines/engine.js';
import { MAX_EVENTS_PER_LIFE, runawayError } from '../engines/life-loop.js';
import type { LifePlan } from './equivalence.js';
import type { Tally } from './prefix-tally.js';

/** A life that ran (to its end, or to its first join point), kept for every start that reads the same. */
export interface Node {
  id: number;
  start: LifeStart;
  /** Exactly one of the two: the life run to its end, or its head. */
  run: LifeRun | null;
  head: LifeHead | null;
  /** A process tier's life whose kill points have been suffered (LifeByLife.cutEvery). */
  cut: boolean;
  /** The picks of its start that it consumed; `pastEnd`: it also found them run out. */
  consumed: readonly number[];
  pastEnd: boolean;
  /** The lives that begin with this node, by the picks they were given. */
  lives: Map<string, Life>;
  /** A node run to its end, as the last life of a schedule: verdicts by what they read (equivalence.ts). */
  judged: Map<string, unknown>;
}

/** A life as a schedule sees it: its first node and, when that is a head, the life it goes on as. */
export interface Life {
  node: Node;
  picks: readonly number[];
  /** Null for a node run to its end; for a head, set once the life it joins is known. */
  rest: Life | null;
  /** Events in all (known once the chain is resolved). */
  length: number;
  /** The node run to its end that the chain ends in. */
  terminal: Node;
  /** Tallies along its events, by the tally it was entered with (and the calls committed before it). */
  tallies: Map<string, Tally[]>;
  /** Its exit tally (after its last event), by the same. */
  exits: Map<string, Tally>;
  /** The life after a kill at each of its events (k + 1), by the life number it is given. */
  children: Map<number, { starts: LifeStart[]; lives: Life[] }>;
  /** A chain run again whole (LifeCache.runWhole), once asked for. */
  whole: LifeRun | null;
}

function consumedFrom(picks: readonly number[], taken: readonly number[]): { consumed: readonly number[]; pastEnd: boolean } {
  return { consumed: picks.slice(0, Math.min(taken.length, picks.length)), pastEnd: taken.length > picks.length };
}

/** What a node's own events and picks are, head or whole life. */
export function ownEvents(node: Node): readonly RunEvent[] {
  return node.run !== null ? node.run.record.events : node.head!.events;
}

function ownPicks(node: Node): { picks: readonly number[]; widths: readonly number[] } {
  return node.run !== null ? node.run : node.head!;
}

function ownAfter(node: Node, k: number): { state: DurableState; picksTaken: number } {
  return node.run !== null ? node.run.after(k) : node.head!.after(k);
}

/** The nodes of a life, first to terminal. */
export function segments(life: Life): Life[] {
  const out: Life[] = [];
  for (let l: Life | null = life; l !== null; l = l.rest) out.push(l);
  return out;
}

/**
 * The life's events: of a chain, those of the whole life run again from its first start (the
 * virtual clock's sums come out to the last bit only that way), made on demand and never kept.
 */
export function lifeEvents(life: Life, cache: LifeCache): RunEvent[] {
  return lifeRecord(life, cache).events;
}

/** The life's record, ended as its terminal node ended; of a chain, run again whole (see lifeEvents). */
export function lifeRecord(life: Life, cache: LifeCache): LifeRecord {
  if (life.rest === null) return life.node.run!.record;
  return cache.runWhole(life).record;
}

/** Every pick the life took and how many calls each chose among. */
export function lifePicks(life: Life): { picks: number[]; widths: number[] } {
  const picks: number[] = [];
  const widths: number[] = [];
  for (const l of segments(life)) {
    const own = ownPicks(l.node);
    picks.push(...own.picks);
    widths.push(...own.widths);
  }
  return { picks, widths };
}

/** What a kill right after each event k of the life leaves (k = -1 first), in order. */
export function* afterEach(life: Life): Generator<{ k: number; state: DurableState; picksTaken: number }> {
  let offset = 0;
  let picksBefore = 0;
  yield { k: -1, ...ownAfter(life.node, -1) };
  for (const l of segments(life)) {
    const n = ownEvents(l.node).length;
    for (let k = 0; k < n; k++) {
      const after = ownAfter(l.node, k);
      yield { k: offset + k, state: after.state, picksTaken: picksBefore + after.picksTaken };
    }
    offset += n;
    picksBefore += ownPicks(l.node).picks.length;
  }
}

/** The state and picks a kill right after event k of the life leaves. */
export function lifeAfter(life: Life, k: number): { state: DurableState; picksTaken: number } {
  if (k < 0) return ownAfter(life.node, -1);
  let offset = 0;
  let picksBefore = 0;
  for (const l of segments(life)) {
    const n = ownEvents(l.node).length;
    if (k < offset + n) {
      const after = ownAfter(l.node, k - offset);
      return { state: after.state, picksTaken: picksBefore + after.picksTaken };
    }
    offset += n;
    picksBefore += ownPicks(l.node).picks.length;
  }
  throw new Error(`no event ${k} in a life of ${offset} events`);
}

export class LifeCache {
  private readonly byKey = new Map<string, Node[]>();
  livesRun = 0;
  eventsRun = 0;
  /** Heads among the lives run (each stopped at a join point). */
  headsRun = 0;

  constructor(
    private readonly lives: LifeByLife,
    private readonly scenario: Scenario,
  ) {}

  /**
   * A chain's whole life, run again from its first start to its end: the events its verdict and
   * report show. Only in-process systems have join points, so this answers at once.
   */
  runWhole(life: Life): LifeRun {
    if (life.whole !== null) return life.whole;
    const run = this.lives.runLife(this.scenario, { state: life.node.start.state, lifeIndex: life.node.start.lifeIndex, picks: life.picks });
    if (run instanceof Promise) throw new Error('a life with join points must run in process');
    // Run, so counted: the figures say what the exploration cost.
    this.livesRun++;
    this.eventsRun += run.record.events.length;
    life.whole = run; // kept: no more than the runs made cost, and the baseline's is asked for by every verdict
    return run;
  }

  get distinctKeys(): number {
    return this.byKey.size;
  }

  private find(start: LifeStart): Node | undefined {
    for (const node of this.byKey.get(this.lives.key(start)) ?? []) {
      if (node.pastEnd ? start.picks.length !== node.consumed.length : start.picks.length < node.consumed.length) continue;
      let same = true;
      for (let i = 0; i < node.consumed.length && same; i++) same = node.consumed[i] === start.picks[i];
      if (same) return node;
    }
    return undefined;
  }

  /** Two starts surely read the same before either has run: the same key and the same picks. */
  private sameRead(a: LifeStart, b: LifeStart): boolean {
    return this.lives.key(a) === this.lives.key(b) && a.picks.length === b.picks.length && a.picks.every((p, i) => p === b.picks[i]);
  }

  private add(start: LifeStart, ran: LifeRun | LifeHead): Node {
    const key = this.lives.key(start);
    const head = 'joins' in ran ? ran : null;
    const run = 'joins' in ran ? null : ran;
    this.eventsRun += head !== null ? head.events.length : run!.record.events.length;
    if (head !== null) this.headsRun++;
    const node: Node = { id: this.livesRun++, start, run, head, cut: false, ...consumedFrom(start.picks, ran.picks), lives: new Map(), judged: new Map() };
    const nodes = this.byKey.get(key);
    if (nodes === undefined) this.byKey.set(key, [node]);
    else nodes.push(node);
    return node;
  }

  /** The life that begins with this node, given these picks (one object per node and picks). */
  private lifeOf(node: Node, picks: readonly number[]): Life {
    const memo = picks.join(',');
    let life = node.lives.get(memo);
    if (life === undefined) {
      life = { node, picks, rest: null, length: node.run !== null ? node.run.record.events.length : -1, terminal: node, tallies: new Map(), exits: new Map(), children: new Map(), whole: null };
      node.lives.set(memo, life);
    }
    return life;
  }

  /**
   * Lives for these starts: those already run are reused, the others asked for in one batch (as
   * heads when `heads`); then each head's chain is followed, one life at a time, to a life run to
   * its end or one already known.
   */
  *livesFor(starts: readonly LifeStart[], heads: boolean): LifePlan<Life[]> {
    const nodes = yield* this.nodesFor(starts, heads);
    const found = nodes.map((n, i) => this.lifeOf(n, starts[i]!.picks));
    for (const [i, life] of found.entries()) if (life.length < 0) yield* this.resolve(life, starts[i]!.lifeIndex);
    return found;
  }

  private *nodesFor(starts: readonly LifeStart[], heads: boolean): LifePlan<Node[]> {
    const found = starts.map((s) => this.find(s));
    const missing: number[] = [];
    const asked: LifeStart[] = [];
    for (const [i, node] of found.entries()) {
      if (node !== undefined) continue;
      // Two starts of this batch may read the same: ask once (the first), then find it for the rest.
      if (asked.some((a) => this.sameRead(a, starts[i]!))) continue;
      missing.push(i);
      asked.push(starts[i]!);
    }
    if (asked.length > 0) {
      const runs = yield asked.map((start) => (heads ? { head: start } : start));
      for (const [j, i] of missing.entries()) this.add(starts[i]!, runs[j]!);
    }
    return starts.map((s, i) => found[i] ?? this.find(s)!);
  }

  /** Follows a head's chain to its end, then numbers each life of it with its length and terminal. */
  private *resolve(first: Life, lifeIndex: number): LifePlan<void> {
    const chain: Life[] = [];
    const inChain = new Set<Life>();
    let events = 0;
    let life = first;
    while (life.length < 0) {
      if (inChain.has(life)) throw new Error(`life ${lifeIndex}: it joins a state it has already been in and would go on for ever (a runaway loop)`);
      inChain.add(life);
      chain.push(life);
      const head = life.node.head!;
      events += head.events.length;
      if (events > MAX_EVENTS_PER_LIFE) throw runawayError(lifeIndex);
      const start: LifeStart = { state: head.joins, lifeIndex, picks: life.picks.slice(Math.min(head.picks.length, life.picks.length)) };
      const [node] = yield* this.nodesFor([start], true);
      life.rest = this.lifeOf(node!, start.picks);
      life = life.rest;
    }
    if (events + life.length > MAX_EVENTS_PER_LIFE) throw runawayError(lifeIndex);
    for (let i = chain.length - 1; i >= 0; i--) {
      const l = chain[i]!;
      l.length = l.node.head!.events.length + l.rest!.length;
      l.terminal = l.rest!.terminal;
    }
  }
}
