// An effect the run never killed does twice by itself, across one of its waits for the outside
// world. Some engines run the whole step that waited again once it is resumed (LangGraph runs the
// node that called interrupt() again from its start), so an effect the step makes before it waits
// is made again after the answer comes, with no kill at all. Every kill schedule's verdict is
// judged against this same run, so no kill finding can show it: it is read from the run never
// killed alone, and reported apart from the kill findings.
//
// Where the run waited and how many effects it had made by then come with its waits' events
// (a kind declared with waitRole 'recorded', its `wait` and `effectsDone`): an effect made after
// a wait's answer and before the next wait that is the same (kind, target, arguments) as one made
// after the previous wait and before this one is made twice by the step that asked.

import { engineEventKind } from './event-kinds.js';
import type { CommittedWrite, RunOutcome } from './outcome.js';

export interface RepeatWithoutKill {
  /** The wait after whose answer the effect was made again (`ask#1`). */
  wait: string;
  /** Where the run waited: the step that runs again when resumed (`ask`). */
  place: string;
  write: CommittedWrite;
  /** The two effects' places among the run's effects, from 1. */
  first: number;
  second: number;
}

/** Each wait of the run never killed with the effects it had made by then, in order. */
function waitsOf(baseline: RunOutcome): { wait: string; effectsDone: number }[] {
  const events = baseline.lives[0]?.events ?? [];
  return events
    .filter((e) => engineEventKind(e.kind)?.waitRole === 'recorded' && e.wait !== undefined && e.effectsDone !== undefined)
    .map((e) => ({ wait: e.wait!, effectsDone: e.effectsDone! }));
}

const sameWrite = (a: CommittedWrite, b: CommittedWrite): boolean => a.kind === b.kind && a.target === b.target && a.args === b.args;

/** Every effect the run never killed made twice across a wait, the first such one per wait. */
export function repeatsWithoutKill(baseline: RunOutcome): RepeatWithoutKill[] {
  // A run that did not run through in one life is no run never killed.
  if (baseline.schedule.kills.length > 0 || baseline.lives.length !== 1) return [];
  const waits = waitsOf(baseline);
  const writes = baseline.writes;
  const found: RepeatWithoutKill[] = [];
  for (const [i, w] of waits.entries()) {
    const from = i === 0 ? 0 : Math.min(waits[i - 1]!.effectsDone, w.effectsDone);
    const until = Math.min(waits[i + 1]?.effectsDone ?? writes.length, writes.length);
    for (let second = w.effectsDone; second < until; second++) {
      const first = writes.slice(from, w.effectsDone).findIndex((b) => sameWrite(b, writes[second]!));
      if (first === -1) continue;
      found.push({ wait: w.wait, place: w.wait.replace(/#\d+$/, ''), write: writes[second]!, first: from + first + 1, second: second + 1 });
      break;
    }
  }
  return found;
}

/** The finding's name in reports. */
export function repeatWithoutKillTitle(r: RepeatWithoutKill): string {
  return `done twice without any kill: ${r.place} runs again when resumed`;
}
