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

export interface Tally {
  /** Equal tallies have one id (interned by content). */
  id: number;
  modelRequests: number;
  answerStreams: number;
  /** Write calls committed in a prefix life (verdict.ts: committedBefore of the next life). */
  committed: ReadonlySet<string>;
  /** Calls the shop committed or answered. */
  sent: ReadonlySet<string>;
  sentAgain: number;
  harmless: number;
  refused: readonly string[];
  unknownStart: boolean;
}

type TallyContent = Omit<Tally, 'id'>;

export class Tallies {
  private readonly byContent = new Map<string, Tally>();
  readonly empty: Tally;

  constructor(private readonly knownCalls: ReadonlySet<string>) {
    this.empty = this.intern({ modelRequests: 0, answerStreams: 0, committed: new Set(), sent: new Set(), sentAgain: 0, harmless: 0, refused: [], unknownStart: false });
  }

  private intern(t: TallyContent): Tally {
    const content = `${t.modelRequests}|${t.answerStreams}|${[...t.committed].sort().join('\u0000')}|${[...t.sent].sort().join('\u0000')}|${t.sentAgain}|${t.harmless}|${t.refused.join('\u0000')}|${t.unknownStart}`;
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
   */
  along(enter: Tally, events: readonly RunEvent[]): Tally[] {
    const out: Tally[] = [enter];
    let modelRequests = enter.modelRequests;
    let answerStreams = enter.answerStreams;
    let sentAgain = enter.sentAgain;
    let harmless = enter.harmless;
    let unknownStart = enter.unknownStart;
    const refused = [...enter.refused];
    const committedHere = new Set<string>();
    const sent = new Set(enter.sent);
    let current = enter;
    for (const e of events) {
      let changed = false;
      if (e.kind === 'model-request') {
        modelRequests++;
        changed = true;
      } else if (e.kind === 'model-chunk' && e.final && e.chunk === 0) {
        answerStreams++;
        changed = true;
      } else if (e.callId !== undefined && (e.kind === 'tool-start' || e.kind === 'shop-commit' || e.kind === 'tool-result')) {
        changed = true;
        if (e.kind === 'shop-commit' || e.kind === 'tool-result') sent.add(e.callId);
        if (e.kind === 'tool-start' && !this.knownCalls.has(e.callId)) unknownStart = true;
        if (!enter.committed.has(e.callId)) {
          if (e.kind === 'shop-commit') committedHere.add(e.callId);
        } else {
          if (e.kind === 'tool-start') sentAgain++;
          if (e.kind === 'tool-result' && e.refused !== undefined) refused.push(e.refused);
          if (e.kind === 'tool-result' && e.refused === undefined && !e.write) harmless++;
        }
      }
      if (changed) {
        // The life ends here (killed): what it committed counts as committed before the next one.
        const committed = committedHere.size === 0 ? enter.committed : new Set([...enter.committed, ...committedHere]);
        current = this.intern({ modelRequests, answerStreams, committed, sent: new Set(sent), sentAgain, harmless, refused: [...refused], unknownStart });
      }
      out.push(current);
    }
    return out;
  }
}
