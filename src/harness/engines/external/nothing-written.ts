// A run never killed that commits no write leaves nothing for a kill to repeat or lose, so every
// kill point "survives" it. That is how an agent whose journal lives outside KILLPOINT_STATE_DIR
// looks once a journal is already there (the user's own run of it, or an earlier killpoint run):
// both runs never killed resume a finished task and answer, the same way, writing nothing outside.
// No refusal (an agent may only read), but the pass says what it rests on.

import type { RunOutcome } from '../../check/outcome.js';
import type { SystemUnderTest } from '../../engine.js';
import { ENV } from '../../process/protocol.js';

/**
 * Watches the first run never killed of `system`'s sessions (its `open` is wrapped, in place, so
 * that whoever runs it needs no other object); the answer then tells whether that run committed no
 * write, as a note for a report that passed.
 */
export function watchNothingWritten(system: SystemUnderTest): () => string | null {
  let neverKilled: RunOutcome | null = null;
  const open = system.open.bind(system);
  system.open = (scenario) => {
    const session = open(scenario);
    return {
      ...session,
      run: (schedule) => {
        const outcome = session.run(schedule);
        if (schedule.kills.length === 0 && neverKilled === null) void Promise.resolve(outcome).then((o) => (neverKilled ??= o), () => {});
        return outcome;
      },
    };
  };
  return () => (neverKilled !== null && neverKilled.writes.length === 0 ? nothingWrittenNote() : null);
}

function nothingWrittenNote(): string {
  return `  note: the run never killed committed no write (write_log is empty), so no kill point could repeat or lose one; an agent that resumed a finished task from state outside ${ENV.stateDir} (a journal an earlier run left under ~) passes this way`;
}
