// The scripted engine's sessions, and their lives one at a time from a named durable state (the
// seam's SessionLives): the explorer runs one recovery per distinct state and reuses the baseline's
// own life as the prefix of every kill point, instead of running each kill-and-resume from scratch.
// A life reads the stores (durable-state.ts), the interleaving picks it consumes and, under fresh
// random keys only, its life number (the keys' seed); nothing else. Lives of the journal and
// workflow strategies also have join points (runner.ts: atJoinPoint), so a recovery can be run only
// up to the first (runHead).

import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import type { Schedule } from '../../check/outcome.js';
import type { InProcessSession, LifeHead, LifeRun, LifeStart } from '../../engine.js';
import { driveLife } from '../../life-loop.js';
import { RecordingStores, ScriptedState, StateSpace } from './durable-state.js';
import { classifyScriptedError } from './life-errors.js';
import { reusableMemoryStores } from './reusable-stores.js';
import { agentLife, Interleaving } from './runner.js';
import { simulate } from './simulate.js';
import type { Strategy } from './strategies.js';

/**
 * A session of a strategy on a scenario. It keeps one scripted model, shared by every run and life
 * of the session (the model keeps what it has read of the conversation it last answered, which is
 * exact for any conversation and saves reading it again), and one state space: digests are
 * compared only within one. Both are made when first needed; closing lets them go.
 */
export function scriptedSession(scenario: Scenario, strategy: Strategy): InProcessSession {
  let model: ScriptedModel | null = null;
  let space: StateSpace | null = null;
  let closed = false;
  const modelOf = (): ScriptedModel => {
    if (closed) throw new Error(`${scenario.id} ${strategy.name}: the session is closed`);
    return (model ??= new ScriptedModel(scenario));
  };
  const spaceOf = (): StateSpace => {
    if (closed) throw new Error(`${scenario.id} ${strategy.name}: the session is closed`);
    return (space ??= new StateSpace());
  };
  const lifeFrom = (start: LifeStart, stopAt: (state: ScriptedState, picksTaken: number) => boolean): LifeRun | LifeHead => {
    const from = start.state;
    if (!(from instanceof ScriptedState) || space === null || from.stateSpace !== space) {
      throw new Error(`${scenario.id} ${strategy.name}: a life can only start from a state of this session`);
    }
    return runLife(scenario, strategy, modelOf(), start, stopAt);
  };
  // Fresh random keys are seeded by the life number; no other strategy reads it.
  const readsLifeIndex = strategy.keys === 'random';
  return {
    scenario,
    run: (schedule: Schedule) => simulate(scenario, strategy.name, schedule, modelOf()),
    lives: {
      initial: () => spaceOf().initial,
      key: (start) => (readsLifeIndex ? `${start.state.digest}|life ${start.lifeIndex}` : start.state.digest),
      runLife: (start) => lifeFrom(start, () => false) as LifeRun,
      runHead: (start, stopAt) => lifeFrom(start, stopAt),
    },
    close: () => {
      closed = true;
      model = null;
      space = null;
    },
  };
}

/** A life from `start`: to its end, or to the first join point `stopAt` says to stop at (runner.ts: atJoinPoint). */
function runLife(scenario: Scenario, strategy: Strategy, model: ScriptedModel, start: LifeStart, stopAt: (state: ScriptedState, picksTaken: number) => boolean): LifeRun | LifeHead {
  const from = start.state as ScriptedState;
  const { stores, release } = reusableMemoryStores(scenario.shop, strategy.journalWrite);
  try {
    from.restoreInto(stores);
    const recording = new RecordingStores(stores, from);
    const interleaving = new Interleaving(start.picks);
    // After each event: the durable state a kill there leaves, and the picks taken so far.
    const states: ScriptedState[] = [];
    const picksAt: number[] = [];
    // It says where each join point it passed was, and stops at one when asked to.
    let joined = false;
    const joinPoints: number[] = [];
    const atJoinPoint = (): boolean => {
      if (stopAt(recording.current, interleaving.taken.length)) return (joined = true);
      joinPoints.push(states.length - 1);
      return false;
    };
    const driven = driveLife(start.lifeIndex, null, () => agentLife({ scenario, model, strategy, stores: recording.stores, lifeIndex: start.lifeIndex, interleaving, atJoinPoint }), classifyScriptedError, () => {
      states.push(recording.current);
      picksAt.push(interleaving.taken.length);
    });
    const after = (k: number): { state: ScriptedState; picksTaken: number } => (k < 0 ? { state: from, picksTaken: 0 } : { state: states[k]!, picksTaken: picksAt[k]! });
    if (joined) return { events: driven.record.events, joinPoints, picks: [...interleaving.taken], widths: [...interleaving.widths], after, joins: recording.current };
    return {
      record: driven.record,
      conversation: driven.result?.conversation ?? null,
      picks: [...interleaving.taken],
      widths: [...interleaving.widths],
      after,
      stores: { delivered: stores.outbox.delivered(scenario.id), writes: stores.shop.writeLog(), refusals: stores.shop.refusalLog(), shop: stores.shop.snapshot() },
      joinPoints,
    };
  } finally {
    release();
  }
}
