// The bundled agent as a Mastra workflow, built for one scenario. A Mastra workflow is a graph of
// steps fixed before it runs, and its restart() resumes a run at the step its snapshot says is
// active, so the agent's loop is unrolled into that graph: turn i is the model step `model-i`,
// then the reply's tool calls as the steps `tool-i-0` ... `tool-i-(W-1)` (in .parallel() when the
// scenario's widest reply has several calls: W), then `model-(i+1)` (shape.ts). A tool step whose
// reply has fewer calls than W returns at once. Once a model step has the final answer, the steps
// after it hand it on without running anything (no model call, no event but their snapshots), and
// the last model step's output is the run's. With `endsBy: 'bail'` (the finding's variant,
// config.ts) the model step with the final answer ends the run with bail() instead.
// Each step reads what it needs from the results Mastra recorded (getStepResult), never from the
// life's memory: a restarted run has only those.

import { createStep, createWorkflow, type Workflow } from '@mastra/core/workflows';
import { z } from 'zod';
import type { AssistantMessage, Conversation, ToolCall } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import type { ToolResult } from '../../../model/tools.js';
import { WORKFLOW_ID } from './run-spec.js';
import { modelStepId, toolStepId, workflowShape } from './shape.js';

/**
 * What a model step records, and the run's output: the conversation up to its reply, its step
 * number (null for a step that only handed on the answer: it recorded no step of the agent's), and
 * the answer once there is one.
 */
export interface ModelStepOutput {
  conversation: Conversation;
  step: number | null;
  answer: string | null;
}

/** What a tool step records: its call and result, or nothing when its reply had no call for it. */
export type ToolStepOutput = { callId: string; step: number; result: ToolResult } | { callId: null };

/** The agent's own work in a step, which the life supplies (its events, its gate, its shop). */
export interface AgentSteps {
  model(conversation: Conversation, step: number): Promise<AssistantMessage>;
  /** A tool call; `batch` is every call of its reply (the gate waits for all of them). */
  tool(call: ToolCall, step: number, batch: readonly ToolCall[]): Promise<ToolResult>;
}

type StepResults = (id: string) => unknown;

/** The conversation a model step of turn `turn` is given: the previous turn's, with its tool results in call order. */
function conversationBefore(turn: number, customerMessage: string, results: StepResults, width: number): Conversation {
  if (turn === 0) return [{ role: 'user', content: customerMessage }];
  const before = results(modelStepId(turn - 1)) as ModelStepOutput;
  const conversation = [...before.conversation];
  for (let slot = 0; slot < width; slot++) {
    const out = results(toolStepId(turn - 1, slot)) as ToolStepOutput;
    if (out.callId !== null) conversation.push({ role: 'tool', toolCallId: out.callId, content: JSON.stringify(out.result) });
  }
  return conversation;
}

const anything = z.any();

// The builder's types follow each step's schemas through every .then(); an unrolled graph of
// schemaless steps has none to follow, so it is built through this one loose type.
type Builder = { then(step: unknown): Builder; parallel(steps: unknown[]): Builder; commit(): unknown };

export interface AgentWorkflowOptions {
  /** How the run ends once the model answers: its remaining steps hand the answer on, or bail(). */
  endsBy: 'last-step' | 'bail';
}

export function agentWorkflow(scenario: Scenario, steps: AgentSteps, options: AgentWorkflowOptions): Workflow {
  const { turns, width } = workflowShape(scenario);
  const modelStep = (turn: number) =>
    createStep({
      id: modelStepId(turn),
      inputSchema: anything,
      outputSchema: anything,
      execute: async ({ getInitData, getStepResult, bail }): Promise<ModelStepOutput> => {
        const before = turn === 0 ? null : (getStepResult(modelStepId(turn - 1)) as ModelStepOutput);
        if (before?.answer != null) return { ...before, step: null };
        const customerMessage = (getInitData() as { customerMessage: string }).customerMessage;
        const conversation = conversationBefore(turn, customerMessage, (id) => getStepResult(id), width);
        const step = conversation.length - 1;
        const reply = await steps.model(conversation, step);
        const after = [...conversation, reply];
        const final = reply.toolCalls.length === 0;
        const output: ModelStepOutput = { conversation: after, step, answer: final ? reply.content : null };
        if (final && options.endsBy === 'bail') return bail(output) as never;
        if (!final && (reply.toolCalls.length > width || turn === turns - 1)) throw new Error(`scenario ${scenario.id}: a reply the workflow has no steps for (turn ${turn}, ${reply.toolCalls.length} calls)`);
        return output;
      },
    });
  const toolStep = (turn: number, slot: number) =>
    createStep({
      id: toolStepId(turn, slot),
      inputSchema: anything,
      outputSchema: anything,
      execute: async ({ getStepResult }): Promise<ToolStepOutput> => {
        const { conversation, step, answer } = getStepResult(modelStepId(turn)) as ModelStepOutput;
        if (answer !== null || step === null) return { callId: null };
        const calls = (conversation.at(-1) as AssistantMessage).toolCalls;
        const call = calls[slot];
        if (call === undefined) return { callId: null };
        return { callId: call.id, step: step + 1 + slot, result: await steps.tool(call, step + 1 + slot, calls) };
      },
    });
  let flow = createWorkflow({ id: WORKFLOW_ID, inputSchema: z.object({ customerMessage: z.string() }), outputSchema: anything }) as unknown as Builder;
  for (let turn = 0; turn < turns; turn++) {
    flow = flow.then(modelStep(turn));
    if (turn === turns - 1) break;
    const tools = Array.from({ length: width }, (_, slot) => toolStep(turn, slot));
    flow = width === 1 ? flow.then(tools[0]) : flow.parallel(tools);
  }
  return flow.commit() as Workflow;
}
