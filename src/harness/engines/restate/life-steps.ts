// What a Restate life's handler shares with the life around it, whichever loop the handler is
// (life.ts's own, or the AI SDK's under durableCalls, ai-middleware-agent.ts): the steps by their
// ctx.run names, the gate, the shop's tool step and the events.

import type { ToolCall } from '../../../model/conversation.js';
import type { ToolResult } from '../../../model/tools.js';
import type { BatchGate } from '../../interleaving.js';
import type { EmitEvent } from '../../process/child-main.js';

/** A step of the agent, as its ctx.run is named: the model's by its step number, a tool call's by its id. */
export interface StepName {
  step: number;
  callId?: string;
}

/** What a handler shares with its life: the steps' names, the gate, the shop's tool step, the events. */
export interface LifeSteps {
  /** The steps by their ctx.run names. */
  steps: Map<string, StepName>;
  gate: BatchGate;
  /** A new attempt of the invocation begins (the server may retry one in the same process). */
  beginAttempt(): void;
  /** The step's ctx.run resolved: the server has its result. */
  journaled(name: string): void;
  toolStep(call: ToolCall, step: number, invocationId: string): Promise<ToolResult>;
  emit: EmitEvent;
}
