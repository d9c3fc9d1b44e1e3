// The shape of the unrolled agent workflow (workflow.ts) for a scenario: its step ids, its turns and
// its widest reply. Shared by the child and the parent (the differential); imports no Mastra.

import type { Scenario } from '../../../model/scenario.js';

export const modelStepId = (turn: number): string => `model-${turn}`;
export const toolStepId = (turn: number, slot: number): string => `tool-${turn}-${slot}`;

/**
 * The turns and the widest reply of a scenario: a scenario's step graph is acyclic, so a run has
 * at most as many turns as it has steps; a turn has as many tool steps as its widest reply has calls.
 */
export function workflowShape(scenario: Scenario): { turns: number; width: number } {
  const widths = [...scenario.steps.values()].map((s) => (s.kind === 'calls' ? s.calls.length : 0));
  return { turns: scenario.steps.size, width: Math.max(1, ...widths) };
}
