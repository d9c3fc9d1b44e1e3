// The Vercel support workflow on the AI SDK, its refund keyed by a fresh random id (ai-sdk-agent.ts).
import type { ModelMessage } from 'ai';
import { supportLoop } from './ai-sdk-agent';

export async function supportWorkflow(input: { messages: ModelMessage[] }) {
  'use workflow';
  return supportLoop(input, 'random');
}
