// A user's workflow runs under its run's own names in every life, whichever copy of a state the
// explorer runs it from, as DBOS would run it: DBOS.workflowID (and DBOS.executorID, the
// application version) the same in every life, so a key made of DBOS.workflowID and DBOS.stepID,
// as DBOS advises, names the run and the step after any kill.
//
// The copies of a run's states share one system database, so between lives each state's rows
// carry names of its own (identity.ts: copyIdentity), and a life moves them under the run's first
// names (RunIdentity.runNames) when it starts and back under its state's once it is over (once a
// killed life's sessions are gone, on Postgres). The run's first names can hold one state's rows
// at a time, so the lives of a run, and the copies of its states (which may copy the rows under
// those names: the initial state's), take turns; runs beside each other do not wait on each other.

import { databaseClient, systemDatabase } from './backend.js';
import type { Backend } from './config.js';
import { identityOf } from './identity.js';
import type { RowNames, RunIdentity } from './run-spec.js';
import { moveRows, settled } from './tier.js';

/** The end of the last job of each run that is running or waiting (see inRunsTurn). */
const turns = new Map<string, Promise<unknown>>();

/** Runs `job` once every earlier job of the run `runKey` has ended: one at a time per run. */
export function inRunsTurn<T>(runKey: string, job: () => Promise<T>): Promise<T> {
  const before = turns.get(runKey) ?? Promise.resolve();
  const mine = before.then(job, job);
  const settledMine = mine.then(
    () => undefined,
    () => undefined,
  );
  turns.set(runKey, settledMine);
  void settledMine.then(() => {
    if (turns.get(runKey) === settledMine) turns.delete(runKey);
  });
  return mine;
}

/** The names a life of the state launches with: the run's first names (its key is their workflow id). */
export function runsNamesOf(state: RunIdentity): RunIdentity {
  return { ...state.runNames, runKey: state.runKey, runNames: state.runNames };
}

const sameNames = (a: RowNames, b: RowNames): boolean => a.workflowId === b.workflowId && a.executorId === b.executorId && a.appVersion === b.appVersion;

/**
 * Runs `life` (given the names it launches with, and the state's own) from the state in
 * `stateDir` under the run's first names, its rows moved there for the life and back after it.
 * A state that already has the run's first names (a whole run's, in the folder it was prepared
 * in) moves nothing. A life that failed fails as it did, its rows moved back all the same.
 */
export function underRunsNames<T>(backend: Backend, stateDir: string, life: (run: RunIdentity, state: RunIdentity) => Promise<T>): Promise<T> {
  const state = identityOf(stateDir);
  const run = runsNamesOf(state);
  return inRunsTurn(state.runKey, async () => {
    if (sameNames(state, run)) return life(run, state);
    const url = await systemDatabase(backend);
    await moveRows(url, state, run);
    let lived: { value: T } | { error: unknown };
    try {
      lived = { value: await life(run, state) };
    } catch (error) {
      lived = { error };
    }
    // A killed life's sessions still run what they had received (Postgres): they go first.
    const back = (async () => {
      if (backend === 'postgres') await settled(databaseClient(url), state);
      await moveRows(url, run, state);
    })();
    // A failed life fails as it did, not as its move back may; after a life that did not, a move that fails fails it.
    if ('error' in lived) {
      await back.catch(() => {});
      throw lived.error;
    }
    await back;
    return lived.value;
  });
}
