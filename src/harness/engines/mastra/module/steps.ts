// The steps of a user's Mastra workflow, observed: each plain step's execute is wrapped (once) so
// that its beginning and its return are events (execute-start, execute-return), and the steps of a
// .parallel() group pass a gate first, so that they run one at a time in the order the
// interleaving picks choose (Mastra records a group's results in one snapshot, and a restart runs
// the group again whole). A nested workflow's steps are observed as its own graph's.

import { BatchGate } from '../../../interleaving.js';
import type { EmitEvent } from '../../../process/child-main.js';

interface StepLike {
  id: string;
  execute: (args: unknown) => Promise<unknown>;
  stepGraph?: GraphEntry[];
}
type GraphEntry = { type: string; step?: StepLike; steps?: GraphEntry[] };

/** Every plain step of the graph in order, each with the ids of its .parallel() group (empty when it is not in one). */
function plainSteps(graph: readonly GraphEntry[], group: string[] = []): { step: StepLike; group: string[] }[] {
  return graph.flatMap((entry) => {
    if (entry.type === 'parallel' && entry.steps !== undefined) {
      const ids = entry.steps.flatMap((e) => (e.step === undefined ? [] : [e.step.id]));
      return plainSteps(entry.steps, ids);
    }
    if (entry.steps !== undefined) return plainSteps(entry.steps, group);
    const step = entry.step;
    if (step === undefined) return [];
    return step.stepGraph !== undefined ? plainSteps(step.stepGraph) : [{ step, group }];
  });
}

const observed = new WeakSet<StepLike>();

/**
 * Wraps the workflow's steps' execute functions; answers the steps' ids in graph order (a step's
 * number in step-recorded events is its place there).
 */
export function observeSteps(workflow: { stepGraph: GraphEntry[] }, gate: BatchGate, emit: EmitEvent): string[] {
  const steps = plainSteps(workflow.stepGraph);
  for (const { step, group } of steps) {
    if (observed.has(step)) continue;
    observed.add(step);
    const execute = step.execute.bind(step);
    const stepName = step.id;
    step.execute = async (args) => {
      if (group.length === 0) {
        emit({ kind: 'execute-start', stepName });
        const result = await execute(args);
        emit({ kind: 'execute-return', stepName });
        return result;
      }
      gate.expect(group);
      try {
        await gate.pass(stepName);
        emit({ kind: 'execute-start', stepName });
        const result = await execute(args);
        await gate.pass(stepName);
        emit({ kind: 'execute-return', stepName });
        return result;
      } finally {
        gate.finish(stepName);
      }
    };
  }
  return steps.map(({ step }) => step.id);
}
