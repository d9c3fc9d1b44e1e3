'use step';

// The steps of the Vercel support workflow (ai-sdk*.ts), as the Workflow SDK's docs write
// them: each model call is a step that calls generateText on the AI SDK's OpenAI provider, and each
// tool the model calls is a step that calls the shop's API with fetch. The model is given its tools
// without an execute: it only decides, and the workflow runs what it decided as a step of its own.

import { randomUUID } from 'node:crypto';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, tool, type ModelMessage } from 'ai';
import { getStepMetadata, getWorkflowMetadata } from 'workflow';
import { z } from 'zod';
import { lookupOrder, refund } from '../shop.js';

export type Keys = 'none' | 'stable' | 'random';

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: { order_id: string; cents?: number };
}

// Made as the module loads, as people make it, from the same variables as the OpenAI SDK reads.
const openai = createOpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });

const TOOLS = {
  lookup_order: tool({ description: 'Look an order up: its total and what was refunded.', inputSchema: z.object({ order_id: z.string() }) }),
  refund: tool({ description: 'Refund an order, in cents.', inputSchema: z.object({ order_id: z.string(), cents: z.number().int() }) }),
};

/** One model call: its text, the tools it called, and its messages to append to the conversation. */
export async function askModel(messages: ModelMessage[]): Promise<{ text: string; calls: ToolCall[]; said: ModelMessage[] }> {
  // openai.chat: chat completions (the provider's default model speaks the Responses API).
  const result = await generateText({ model: openai.chat('gpt-4o-mini'), messages, tools: TOOLS });
  const calls = result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input as ToolCall['input'] }));
  return { text: result.text, calls, said: result.response.messages };
}

export async function lookupOrderStep(orderId: string): Promise<string> {
  return JSON.stringify(await lookupOrder(orderId));
}

/** The refund, keyed not at all, by the run and the step (the same in every life), or by a fresh random id. */
export async function refundStep(orderId: string, cents: number, keys: Keys): Promise<string> {
  const key = keys === 'stable' ? `${getWorkflowMetadata().workflowRunId}:${getStepMetadata().stepId}` : keys === 'random' ? randomUUID() : undefined;
  return JSON.stringify(await refund(orderId, cents, key));
}
