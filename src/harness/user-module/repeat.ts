// The run never killed is the yardstick of every kill point, so a user's module must repeat it: a
// session runs it twice, and two that differ are bad input, named by what differs first (an event,
// an effect, the answer, the state).

import { describeEvent } from '../check/event-kinds.js';
import type { RunOutcome } from '../check/outcome.js';
import { SystemInputError } from '../engine.js';

export function mustRepeatItself(moduleArg: string, first: RunOutcome, second: RunOutcome): void {
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
  const effects = (o: RunOutcome) => o.writes.map((w) => `${w.kind} ${w.target} ${w.args}`);
  const ea = effects(first);
  const eb = effects(second);
  for (let i = 0; i < Math.max(ea.length, eb.length); i++) {
    if (ea[i] !== eb[i]) throw new SystemInputError(`${what} at effect ${i}: ${ea[i] ?? '(none)'} in the first, ${eb[i] ?? '(none)'} in the second`);
  }
  if (JSON.stringify(first.delivered) !== JSON.stringify(second.delivered)) throw new SystemInputError(`${what} in their answer: ${JSON.stringify(first.delivered[0] ?? null)} and ${JSON.stringify(second.delivered[0] ?? null)}`);
  if (JSON.stringify(first.shop) !== JSON.stringify(second.shop)) throw new SystemInputError(`${what} in their final state`);
}
