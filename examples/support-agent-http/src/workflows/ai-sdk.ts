// The Vercel support workflow on the AI SDK, its refund not keyed (ai-sdk-agent.ts).
import type { ModelMessage } from 'ai';
import { supportLoop } from './ai-sdk-agent';

export async function supportWorkflow(input: { messages: ModelMessage[] }) {
  'use workflow';
  return supportLoop(input, 'none');
}
