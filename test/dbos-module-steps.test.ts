// What killpoint sees of a user's DBOS workflow's steps (src/harness/engines/dbos/module/steps.ts),
// on a stand-in for DBOS's executor: in one process, life after life, each life sees its own
// executor's steps once, and none of another executor's (a killed life's workflow, run on by the
// executor it started with, or a later DBOS life that observes its steps its own way).

import { describe, expect, it } from 'vitest';
import { BatchGate } from '../src/harness/interleaving.js';
import { observeSteps } from '../src/harness/engines/dbos/module/steps.js';

type Call = (stepFn: () => Promise<unknown>, name: string, config: unknown, instance: unknown) => Promise<unknown>;

/** DBOS's executor as the observer touches it: callStepFunction runs the step. */
class Executor {
  callStepFunction(stepFn: () => Promise<unknown>): Promise<unknown> {
    return stepFn();
  }
}

function life(current: () => Executor) {
  const events: string[] = [];
  const gate = new BatchGate([], () => {});
  observeSteps({ DBOSExecutor: Executor as never, getFunctionRegistration: () => undefined, stepId: () => 0, currentExecutor: current }, gate, (e) => void events.push(e.kind));
  return events;
}

const runStep = (executor: Executor) => (executor.callStepFunction as unknown as Call).call(executor, async () => 'done', 'refund', undefined, undefined);

describe("a user's workflow's steps, observed life after life in one process", () => {
  it("each life sees its own executor's step once, whatever lives came before it", async () => {
    const first = new Executor();
    const second = new Executor();
    let current = first;
    const firstLife = life(() => current);
    await runStep(first);
    current = second;
    const secondLife = life(() => current);
    await runStep(second);
    expect(firstLife).toEqual(['step-start', 'step-return']);
    expect(secondLife).toEqual(['step-start', 'step-return']);
  });

  it("a step of a killed life's executor, called after the next life began, is run unobserved", async () => {
    const killed = new Executor();
    const next = new Executor();
    const nextLife = life(() => next);
    expect(await runStep(killed)).toBe('done');
    expect(nextLife).toEqual([]);
  });

  it("a later executor's steps are not the ended life's: a bundled DBOS life after a check of a user's workflow runs unobserved by it", async () => {
    const userLife = new Executor();
    const engineLife = new Executor();
    let current = userLife;
    const events = life(() => current);
    await runStep(userLife);
    current = engineLife;
    expect(await runStep(engineLife)).toBe('done');
    expect(events).toEqual(['step-start', 'step-return']);
  });
});
