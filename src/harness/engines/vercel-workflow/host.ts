// What the workflow's steps call in the process of a life: the scripted model and the shop, with
// the life's events and keys. The workflow file (workflow/agent.ts) is compiled apart by the
// Workflow SDK's builder into bundles of its own, so its steps cannot import the life's objects:
// the life installs them on globalThis under this name before the world starts, and a step reads
// them when it runs (steps run in the life's own process, the local world's queue calls them there).

import type { AssistantMessage, Conversation } from '../../../model/conversation.js';
import type { ToolResult } from '../../../model/tools.js';

export const HOST_KEY = 'killpoint.vercel-workflow.host';

/** What the running step knows of itself (getWorkflowMetadata, getStepMetadata). */
export interface StepContext {
  runId: string;
  stepId: string;
  /** The model's tool call id (DurableAgent); for a plain step, the call it runs. */
  callId: string;
}

export interface WorkflowHost {
  /** A tool call through the shop: its events, the key the system gives it. */
  tool(name: string, args: Record<string, unknown>, step: StepContext): ToolResult;
  /** The scripted model as an AI SDK language model (for the DurableAgent's model step). */
  languageModel(): unknown;
  /** The scripted model's reply to a conversation (for the plain model step). */
  reply(conversation: Conversation): Promise<AssistantMessage>;
}
