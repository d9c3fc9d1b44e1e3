// The workflows killpoint runs on Vercel Workflow, compiled by the SDK's builder (bundles.ts) into a
// workflow bundle (the "use workflow" functions, run in the SDK's sandbox and replayed from the
// run's events) and a step bundle (the "use step" functions, run in the life's process). A step
// reaches the life's shop and model through the host the life installs (host.ts); nothing else of
// killpoint is imported here, so the bundles depend on this file and the SDK's packages only.
//
//   agentWorkflow  a DurableAgent: its model step (doStreamStep) asks scriptedModel for the model,
//                  each tool's execute calls shopTool with the model's tool call id.
//   stepsWorkflow  plain steps: modelStep for each model call, plainTool for each tool call, a
//                  reply's calls in Promise.all, the conversation kept by the workflow.

import { DurableAgent } from '@workflow/ai/agent';
import { jsonSchema, type ModelMessage } from 'ai';
import { getStepMetadata, getWorkflowMetadata, getWritable } from 'workflow';
import type { AssistantMessage, Conversation } from '../../../../model/conversation.js';
import type { WorkflowHost } from '../host.js';

/** A scripted task never needs more turns than this; more means a runaway loop. */
const MAX_TURNS = 200;

function host(): WorkflowHost {
  const installed = (globalThis as Record<string, unknown>)['killpoint.vercel-workflow.host'];
  if (installed === undefined) throw new Error('killpoint: no host installed for the workflow steps');
  return installed as WorkflowHost;
}

/** A tool call of the DurableAgent, as one step: the shop's call under the run and the call's ids. */
export async function shopTool(name: string, args: Record<string, unknown>, toolCallId: string) {
  'use step';
  return host().tool(name, args, { runId: getWorkflowMetadata().workflowRunId, stepId: getStepMetadata().stepId, callId: toolCallId });
}

/** The DurableAgent's model: called inside its model step, so it is a step function too (the SDK serializes a reference to it). */
export async function scriptedModel() {
  'use step';
  return host().languageModel() as never;
}

/** The tools the agent offers: the shop's, each with a schema that takes any object (the shop checks its own arguments). */
function agentTools(names: readonly string[]) {
  const anyObject = jsonSchema<Record<string, unknown>>({ type: 'object' }, { validate: (value) => ({ success: true, value: value as Record<string, unknown> }) });
  return Object.fromEntries(
    names.map((name) => [name, { description: `The shop's ${name} tool.`, inputSchema: anyObject, execute: (input: Record<string, unknown>, options: { toolCallId: string }) => shopTool(name, input, options.toolCallId) }]),
  );
}

export async function agentWorkflow(customerMessage: string, toolNames: string[]): Promise<{ messages: ModelMessage[] }> {
  'use workflow';
  const agent = new DurableAgent({ model: scriptedModel, tools: agentTools(toolNames) });
  const result = await agent.stream({ messages: [{ role: 'user', content: customerMessage }], writable: getWritable(), maxSteps: MAX_TURNS });
  return { messages: result.messages };
}

/** A model call, as one step. */
export async function modelStep(conversation: Conversation): Promise<AssistantMessage> {
  'use step';
  return host().reply(conversation);
}

/** A tool call, as one step. */
export async function plainTool(name: string, args: Record<string, unknown>, callId: string) {
  'use step';
  return host().tool(name, args, { runId: getWorkflowMetadata().workflowRunId, stepId: getStepMetadata().stepId, callId });
}

export async function stepsWorkflow(customerMessage: string): Promise<{ answer: string; conversation: Conversation }> {
  'use workflow';
  const conversation: Conversation = [{ role: 'user', content: customerMessage }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const reply = await modelStep(conversation);
    conversation.push(reply);
    if (reply.toolCalls.length === 0) return { answer: reply.content, conversation };
    const results = await Promise.all(reply.toolCalls.map((call) => plainTool(call.name, call.args, call.id)));
    // Results come back in call order, whatever order the steps ran in.
    for (const [i, call] of reply.toolCalls.entries()) conversation.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(results[i]) });
  }
  throw new Error(`more than ${MAX_TURNS} turns`);
}
