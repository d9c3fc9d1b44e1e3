// What killpoint sees of a user's DBOS workflow without touching its code: every step, whichever
// way the workflow calls it (DBOS.runStep, a function from DBOS.registerStep, a decorated method),
// goes through one function of DBOS's executor (callStepFunction), which is wrapped here. A step's
// function is wrapped in turn, so its start and its return are events (kill points); DBOS's own
// records of it come from the commit hooks (../hooks.ts).
//
// Parallel steps (Promise.all) would run in whatever order the database's round trips give, so
// they go through the batch gate (BatchGate, the harness's interleaving rule): each step is expected the moment the workflow calls
// it (DBOS numbers it then, in call order: the wrapper keeps that), waits at the gate once DBOS has
// found it unrecorded and is about to run it, and finishes when DBOS has recorded it (or found it
// recorded). One step runs at a time, in the order the interleaving picks choose.

import type { EmitEvent } from '../../../process/child-main.js';
import type { BatchGate } from '../../../interleaving.js';

type StepFunction = (...args: unknown[]) => Promise<unknown>;

interface ExecutorClass {
  prototype: { callStepFunction: (stepFn: StepFunction, name: string | undefined, config: unknown, instance: unknown, ...args: unknown[]) => Promise<unknown> };
}

export interface StepPackages {
  DBOSExecutor: ExecutorClass;
  getFunctionRegistration: (fn: unknown) => { stepConfig?: unknown } | undefined;
  /** DBOS.stepID: the number DBOS gave the running step. */
  stepId: () => number | undefined;
  /** The executor DBOS runs now (DBOSExecutor.globalInstance): the life's is the one running its first step. */
  currentExecutor: () => unknown;
}

/** DBOS's own callStepFunction, kept on the prototype: each life's wrapper wraps it, never an earlier life's wrapper. */
const DBOS_OWN = Symbol.for('killpoint.dbos.callStepFunction');

/** The step whose output DBOS is about to record (one at a time: the gate sees to that). */
export interface StepObserver {
  takeRecorded(): { step: number; name: string } | null;
}

export function observeSteps(packages: StepPackages, gate: BatchGate, emit: EmitEvent): StepObserver {
  const proto = packages.DBOSExecutor.prototype as ExecutorClass['prototype'] & { [DBOS_OWN]?: ExecutorClass['prototype']['callStepFunction'] };
  const callStepFunction = (proto[DBOS_OWN] ??= proto.callStepFunction);
  let called = 0;
  let lifeExecutor: unknown;
  let returned: { step: number; name: string } | null = null;
  proto.callStepFunction = function (this: unknown, stepFn, stepName, config, instance, ...args) {
    // This life's executor is the one DBOS runs when the first step is called. Any other is not
    // this life's: a killed life's, run on by its shut-down executor in this process (its pool is
    // cut), or a later one's that does not observe steps this way (the bundled engine's, in the
    // same process after a check of a user's workflow): DBOS's own function, unobserved.
    lifeExecutor ??= this === packages.currentExecutor() ? this : undefined;
    if (this !== lifeExecutor) return callStepFunction.call(this, stepFn, stepName, config, instance, ...args);
    const name = stepName ?? stepFn.name ?? '<unnamed>';
    // Looked up on the function the workflow gave, before it is wrapped (DBOS looks it up by the function).
    const stepConfig = config ?? packages.getFunctionRegistration(stepFn)?.stepConfig;
    // Ids that sort in call order: where the picks run out, the first called goes first.
    const id = `step-${String(called++).padStart(6, '0')}`;
    gate.expect([id]);
    const observed = async function (this: unknown, ...stepArgs: unknown[]): Promise<unknown> {
      await gate.pass(id);
      const step = packages.stepId() ?? -1;
      emit({ kind: 'step-start', step, stepName: name });
      const result = await stepFn.apply(this, stepArgs);
      emit({ kind: 'step-return', step, stepName: name });
      returned = { step, name };
      return result;
    };
    // Called at once, so that DBOS numbers the step in the order the workflow called it.
    const running = callStepFunction.call(this, observed, name, stepConfig, instance, ...args);
    return running.finally(() => gate.finish(id));
  };
  return {
    takeRecorded() {
      const r = returned;
      returned = null;
      return r;
    },
  };
}
