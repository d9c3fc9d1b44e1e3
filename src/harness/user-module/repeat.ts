// The run never killed is the yardstick of every kill point, so a user's module must repeat it: a
// session runs it twice, and two that differ are bad input, named by what differs first (an event,
// an effect, the answer, the state). Explored by equivalence, a session's run never killed is its
// first life, never run as a whole schedule: that life is held to a run from scratch instead.

import { describeEvent } from '../check/event-kinds.js';
import { noKills, type LifeRecord, type RunOutcome, type Schedule } from '../check/outcome.js';
import { SystemInputError, type LifeRun } from '../engine.js';
import type { ProcessLivesOf } from '../process/process-lives.js';

/** What two runs never killed must share: the first life's events, the effects, the answer and the final state. */
type RunRead = Pick<RunOutcome, 'writes' | 'delivered' | 'shop'> & { lives: readonly Pick<LifeRecord, 'events'>[] };

/**
 * The lives of a module's sessions, whose first life from the fresh state (the run never killed,
 * in the explorer's first order) must repeat a run of the whole schedule from scratch. That run
 * goes first, before any life: with a cassette to record, it is the run that records it. One that
 * does not finish ends the check there, with its own cause (`unfinished`): a life run after it
 * fails for having followed it (in process, a DBOS workflow registered once is registered no
 * more), which would hide the cause (an app whose datasource fails at launch was reported as
 * handing out the same workflow twice).
 */
export function livesHeldToARunFromScratch(livesOf: ProcessLivesOf, runFromScratch: (schedule: Schedule) => Promise<RunOutcome>, moduleArg: string, unfinished: (fromScratch: RunOutcome) => Error): ProcessLivesOf {
  return (scenario, times) => {
    const lives = livesOf(scenario, times);
    let yardstick: Promise<RunOutcome> | null = null;
    let checked = false;
    return {
      ...lives,
      runLife: async (start) => {
        const fromScratch = await (yardstick ??= runFromScratch(noKills()));
        if (fromScratch.lives[0]?.end !== 'finished') throw unfinished(fromScratch);
        const life: LifeRun = await lives.runLife(start);
        if (!checked && start.lifeIndex === 0 && start.picks.length === 0 && start.state === lives.initial()) {
          checked = true;
          mustRepeatItself(moduleArg, fromScratch, { ...life.stores, lives: [life.record] });
        }
        return life;
      },
    };
  };
}

export function mustRepeatItself(moduleArg: string, first: RunRead, second: RunRead): void {
  const what = `${moduleArg}: two runs without a kill differ`;
  const a = first.lives[0]?.events ?? [];
  const b = second.lives[0]?.events ?? [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i];
    const y = b[i];
    if (x === undefined || y === undefined || JSON.stringify(x) !== JSON.stringify(y)) {
      throw new SystemInputError(`${what} at event ${i}: ${x === undefined ? '(none)' : describeEvent(x)} in the first, ${y === undefined ? '(none)' : describeEvent(y)} in the second (a module whose runs differ cannot be judged at a kill point)`);
    }
  }
  const effects = (o: RunRead) => o.writes.map((w) => `${w.kind} ${w.target} ${w.args}`);
  const ea = effects(first);
  const eb = effects(second);
  for (let i = 0; i < Math.max(ea.length, eb.length); i++) {
    if (ea[i] !== eb[i]) throw new SystemInputError(`${what} at effect ${i}: ${ea[i] ?? '(none)'} in the first, ${eb[i] ?? '(none)'} in the second`);
  }
  if (JSON.stringify(first.delivered) !== JSON.stringify(second.delivered)) throw new SystemInputError(`${what} in their answer: ${JSON.stringify(first.delivered[0] ?? null)} and ${JSON.stringify(second.delivered[0] ?? null)}`);
  if (JSON.stringify(first.shop) !== JSON.stringify(second.shop)) throw new SystemInputError(`${what} in their final state`);
}
