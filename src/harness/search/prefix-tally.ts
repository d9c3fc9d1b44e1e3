// What a verdict reads of the lives a schedule killed (the prefix), tallied so that kill points
// whose prefixes tally the same and whose last lives are one shared recovery get one verdict:
// the model calls started and the answers that started streaming (verdict.ts), the write calls
// committed and, of those, the ones sent again in a later life with how each ended (verdict.ts's
// sentAgainOutcomes, which follows call ids across lives), the calls the shop saw (checks.ts:
// unsentWrites) and whether a tool started for a call no reply asked for (checks.ts:
// halfAnswerActedOn). Everything else a verdict reads comes from the last life and the stores it
// left, which the shared recovery fixes. test/equivalence.test.ts holds this list to account: it
// compares the verdict so made with judge() of the full run at every kill point.

import type { RunEvent } from '../check/events.js';

/** A set of call ids, interned: equal sets are one object, with one id. */
export interface CallSet {
  readonly id: number;
  readonly items: ReadonlySet<string>;
}

/** A list of refused repeats, interned the same way. */
interface RefusedList {
  readonly id: number;
  readonly items: readonly string[];
}

export interface Tally {
  /** Equal tallies have one id (interned by content). */
  id: number;
  modelRequests: number;
  answerStreams: number;
  /** Write calls committed in a prefix life (verdict.ts: committedBefore of the next life). */
  committed: CallSet;
  /** Calls the shop committed or answered. */
  sent: CallSet;
  sentAgain: number;
  harmless: number;
  /** The repeats refused, each as its call id and the shop's reason (checks.ts: refusedRepeats names the call). */
  refused: RefusedList;
  unknownStart: boolean;
}

type TallyContent = Omit<Tally, 'id'>;

/**
 * Interns sets and lists as they grow one item at a time: a step from a set by an item is found
 * again in a map, and only a step never taken before spells out the new set's content (sorted, so
 * equal sets reached in other orders are one). Tallies are then interned by the ids alone.
 */
class Growing {
  private readonly sets = new Map<string, CallSet>();
  private readonly setSteps = new Map<CallSet, Map<string, CallSet>>();
  private listsMade = 0;
  private readonly listSteps = new Map<RefusedList, Map<string, RefusedList>>();
  readonly emptySet: CallSet = this.internSet(new Set());
  readonly emptyList: RefusedList = { id: 0, items: [] };

  private internSet(items: Set<string>): CallSet {
    const content = [...items].sort().join('\u0000');
    let set = this.sets.get(content);
    if (set === undefined) {
      set = { id: this.sets.size, items };
      this.sets.set(content, set);
    }
    return set;
  }

  add(set: CallSet, item: string): CallSet {
    if (set.items.has(item)) return set;
    let steps = this.setSteps.get(set);
    if (steps === undefined) this.setSteps.set(set, (steps = new Map()));
    let next = steps.get(item);
    if (next === undefined) {
      next = this.internSet(new Set(set.items).add(item));
      steps.set(item, next);
    }
    return next;
  }

  push(list: RefusedList, item: string): RefusedList {
    let steps = this.listSteps.get(list);
    if (steps === undefined) this.listSteps.set(list, (steps = new Map()));
    let next = steps.get(item);
    if (next === undefined) {
      // One object per parent and item, and parents are themselves one per list: equal lists, one id.
      next = { id: ++this.listsMade, items: [...list.items, item] };
      steps.set(item, next);
    }
    return next;
  }
}

export class Tallies {
  private readonly byContent = new Map<string, Tally>();
  private readonly growing = new Growing();
  readonly empty: Tally;

  constructor(private readonly knownCalls: ReadonlySet<string>) {
    this.empty = this.intern({ modelRequests: 0, answerStreams: 0, committed: this.growing.emptySet, sent: this.growing.emptySet, sentAgain: 0, harmless: 0, refused: this.growing.emptyList, unknownStart: false });
  }

  private intern(t: TallyContent): Tally {
    const content = `${t.modelRequests}|${t.answerStreams}|${t.committed.id}|${t.sent.id}|${t.sentAgain}|${t.harmless}|${t.refused.id}|${t.unknownStart}`;
    let tally = this.byContent.get(content);
    if (tally === undefined) {
      tally = { id: this.byContent.size, ...t };
      this.byContent.set(content, tally);
    }
    return tally;
  }

  /**
   * The tally after a life killed right after each of its events, entered with `enter`: entry
   * k + 1 is the tally of a kill after event k (entry 0: killed before anything, nothing added).
   * A life joined to another at a join point goes on in the events of that one: they are tallied
   * as the same life, entered with the tally at the join and `committedBefore`, the calls
   * committed in the lives before this one (what the join's tally holds beyond them was committed
   * in this life).
   */
  along(enter: Tally, events: readonly RunEvent[], committedBefore: CallSet = enter.committed, start = 0, end = events.length): Tally[] {
    const out: Tally[] = [enter];
    this.walk(enter, events, committedBefore, out, start, end);
    return out;
  }

  /** The tally after the last of the events alone (along's last entry, without the others). */
  after(enter: Tally, events: readonly RunEvent[], committedBefore: CallSet = enter.committed, start = 0, end = events.length): Tally {
    return this.walk(enter, events, committedBefore, null, start, end);
  }

  /** Tallies events[start..end); `out`, when given, gets the tally after each. */
  private walk(enter: Tally, events: readonly RunEvent[], committedBefore: CallSet, out: Tally[] | null, start: number, end: number): Tally {
    const grow = this.growing;
    let { modelRequests, answerStreams, sentAgain, harmless, unknownStart, refused, sent } = enter;
    // What a kill here leaves committed before the next life: those before this one and this one's.
    let committed = enter.committed;
    // The tally so far; null while it has changed since it was last interned.
    let current: Tally | null = enter;
    for (let i = start; i < end; i++) {
      const e = events[i]!;
      let changed = false;
      if (e.kind === 'model-request') {
        modelRequests++;
        changed = true;
      } else if (e.kind === 'model-chunk' && e.final && e.chunk === 0) {
        answerStreams++;
        changed = true;
      } else if (e.callId !== undefined && (e.kind === 'tool-start' || e.kind === 'shop-commit' || e.kind === 'tool-result')) {
        changed = true;
        if (e.kind === 'shop-commit' || e.kind === 'tool-result') sent = grow.add(sent, e.callId);
        if (e.kind === 'tool-start' && !this.knownCalls.has(e.callId)) unknownStart = true;
        if (!committedBefore.items.has(e.callId)) {
          if (e.kind === 'shop-commit') committed = grow.add(committed, e.callId);
        } else {
          if (e.kind === 'tool-start') sentAgain++;
          if (e.kind === 'tool-result' && e.refused !== undefined) refused = grow.push(refused, `${e.callId}\u0001${e.refused}`);
          if (e.kind === 'tool-result' && e.refused === undefined && !e.write) harmless++;
        }
      }
      if (out === null) {
        if (changed) current = null;
        continue;
      }
      if (changed) current = this.intern({ modelRequests, answerStreams, committed, sent, sentAgain, harmless, refused, unknownStart });
      out.push(current!);
    }
    return current ?? this.intern({ modelRequests, answerStreams, committed, sent, sentAgain, harmless, refused, unknownStart });
  }
}
