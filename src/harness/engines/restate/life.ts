// One life of a Restate agent on a killpoint scenario, inside its own process. The process is the
// run's service: a Restate service whose one handler is the agent, each model call a `ctx.run`
// step, each tool call a `ctx.run` step (a reply's calls side by side, through the gate), the
// handler returning the answer and the conversation. The life serves it on the run's port,
// registers it with the session's server unless the server knows it already, sends the invocation
// with the run's key as its idempotency key (a later life gets the same invocation back), waits
// for its output, and delivers the answer once. The server retries an invocation whose service
// was killed: the next life's service is called, the journal replayed, and the steps it does not
// hold run again. The ai-middleware systems' handler is the AI SDK's loop instead
// (ai-middleware-agent.ts), with the same tool step, gate and events.
//
// Events, at the engine's own moments: run-start when the SDK's run interceptor fires (a step the
// journal does not hold begins), the model step's model-request, model-chunk and model-reply, a
// tool step's tool-start, shop-commit and tool-result, step-recorded once ctx.run has resolved
// (the server acknowledged the step's journal entry), invocation-done once the invocation's output
// is recorded, answer-delivered. A step the journal holds does not run and has no events. The sink
// kills the process right after the kill point (SIGKILL: no finally).

import { join } from 'node:path';
import * as restate from '@restatedev/restate-sdk';
import seedrandom from 'seedrandom';
import type { AssistantMessage, Conversation, ToolCall } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { Shop } from '../../../model/shop.js';
import { isWriteTool, type ToolName, type ToolResult } from '../../../model/tools.js';
import { FileOutbox } from '../../../model/file-stores.js';
import type { EmitEvent } from '../../process/child-main.js';
import { scriptedModelCall } from '../../process/stream-reply.js';
import type { RestateConfig } from './config.js';
import { BatchGate } from '../../interleaving.js';
import { invocationOutput, registerUnlessKnown, sendOnce, type AgentOutput } from './client.js';
import { aiMiddlewareAgent } from './ai-middleware-agent.js';
import type { StepName } from './life-steps.js';
import { HANDLER, RESTATE_STATE_FILES, RETRY_POLICY, type RunIdentity } from './run-spec.js';

/** A scripted task never needs more turns than this; more means a runaway loop. */
const MAX_TURNS = 200;

export interface RestateLifeInputs {
  scenario: Scenario;
  config: RestateConfig;
  stateDir: string;
  ingressUrl: string;
  adminUrl: string;
  run: RunIdentity;
  lifeIndex: number;
  /** The interleaving picks this life may use (those its predecessors left). */
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /**
   * Serves the life's service on the run's port; by default restate.serve, for the life of the
   * process. A life run inside another process serves it on an endpoint it can tear down at its
   * kill point instead (in-process-life.ts).
   */
  serve?: (service: restate.ServiceDefinition<string, unknown>, port: number) => Promise<void>;
  /** Opens the shop at `path`; by default Shop.open. A life run inside another process opens it through its fence, closed at the kill point. */
  openShop?: (path: string) => Shop;
}

/** The key a write carries: the invocation (the run) and the step (tool call), never a fresh random id. */
export function restateIdempotencyKey(invocationId: string, toolCallId: string): string {
  return `${invocationId}:${toolCallId}`;
}

/** Runs the life to its end and returns the conversation the invocation recorded. */
export async function runRestateLife(inputs: RestateLifeInputs): Promise<Conversation> {
  const { scenario, config, stateDir, run, emit } = inputs;
  const shop = (inputs.openShop ?? Shop.open)(join(stateDir, RESTATE_STATE_FILES.shop));
  const script = new ScriptedModel(scenario);
  const gate = new BatchGate(inputs.picks, inputs.onPick);
  const randomKeys = seedrandom(`${run.runKey}|life ${inputs.lifeIndex}`);
  let modelCalls = 0;
  /** The steps by their ctx.run names. */
  const steps = new Map<string, StepName>();
  /**
   * The steps that ran in the current attempt: only they have a journal event here. A new attempt
   * in the same process (the server may retry one) replays what the journal holds, silently.
   */
  let ranHere = new Set<string>();
  /** Tool calls whose closure the SDK has started, their run-start not said yet (see runStarts). */
  const startedUnsaid = new Set<string>();

  const modelStep = async (conversation: Conversation): Promise<AssistantMessage> => {
    // A conversation the model rejects is the life's failure, not something to retry.
    const terminal = (error: unknown): unknown => ((error as Error).name === 'ConversationRejected' ? new restate.TerminalError(`ConversationRejected: ${(error as Error).message}`) : error);
    return scriptedModelCall(script, conversation, modelCalls++, emit, terminal);
  };

  const toolStep = async (call: ToolCall, step: number, invocationId: string): Promise<ToolResult> => {
    const tool = call.name as ToolName;
    await gate.pass(call.id);
    if (startedUnsaid.delete(call.id)) emit({ kind: 'run-start', step, callId: call.id });
    emit({ kind: 'tool-start', callId: call.id, tool, step });
    await gate.pass(call.id);
    const key = !isWriteTool(tool) || config.keys === 'none' ? null
      : config.keys === 'stable' ? restateIdempotencyKey(invocationId, call.id)
      : `${invocationId}:${Math.floor(randomKeys() * 2 ** 48).toString(16).padStart(12, '0')}`;
    const done = shop.call(tool, call.args, key);
    if (done.committed) emit({ kind: 'shop-commit', callId: call.id, tool, step, write: true });
    await gate.pass(call.id);
    emit({ kind: 'tool-result', callId: call.id, tool, step, write: done.committed, ...(done.result.ok ? {} : { refused: done.result.refused }) });
    return done.result;
  };

  /** The step's ctx.run resolved: the server has its result. Only a step that ran here has the event. */
  const journaled = (name: string): void => {
    if (!ranHere.has(name)) return;
    const { step, callId } = steps.get(name)!;
    emit(callId === undefined ? { kind: 'step-recorded', step } : { kind: 'step-recorded', step, callId });
  };

  const agent = async (ctx: restate.Context, customerMessage: string): Promise<AgentOutput> => {
    const invocationId = ctx.request().id;
    ranHere = new Set();
    const conversation: Conversation = [{ role: 'user', content: customerMessage }];
    let step = 0;
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const modelName = `model ${step}`;
      steps.set(modelName, { step: step++ });
      const reply = await ctx.run(modelName, () => modelStep(conversation));
      journaled(modelName);
      conversation.push(reply);
      if (reply.toolCalls.length === 0) return { answer: reply.content, conversation };
      const calls = reply.toolCalls.map((call) => ({ call, step: step++ }));
      for (const { call, step: s } of calls) steps.set(call.id, { step: s, callId: call.id });
      gate.expect(calls.map(({ call }) => call.id));
      // One combinator for the batch: the SDK drives one progress loop per awaited promise, and two
      // awaited side by side fail the attempt ("awaitNext already pending"). Each call's `map` runs
      // when its step's journal entry is acknowledged: that call's step-recorded, and its finish.
      const results = await restate.RestatePromise.all(
        calls.map(({ call, step: s }) =>
          ctx.run(call.id, () => toolStep(call, s, invocationId)).map((result, failure) => {
            gate.finish(call.id);
            if (failure !== undefined) throw failure;
            journaled(call.id);
            return result!;
          }),
        ),
      );
      // Results come back in call order, whatever order the steps ran in.
      for (const [i, call] of reply.toolCalls.entries()) conversation.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(results[i]) });
    }
    throw new restate.TerminalError(`scenario ${scenario.id}: more than ${MAX_TURNS} turns`);
  };

  // The run interceptor fires only for a step that runs (its result not in the journal): the
  // step's start. Side-by-side calls' closures are started by the SDK one at a time, but in an
  // order its progress loop and the connection's timing decide (not always that of their ctx.run
  // calls: seen both ways, run to run), so a tool call's start is said once the gate lets the call
  // take its first step (toolStep): the picks, not timing, order the events. Nothing durable
  // happens between the two moments.
  const runStarts: restate.HooksProvider = () => ({
    interceptor: {
      run: async (name, next) => {
        const named = steps.get(name);
        if (named === undefined) throw new restate.TerminalError(`restate: a step named "${name}" that the agent did not start`);
        ranHere.add(name);
        if (named.callId === undefined) emit({ kind: 'run-start', step: named.step });
        else startedUnsaid.add(named.callId);
        await next();
      },
    },
  });

  const handler = config.loop === 'ai-middleware'
    ? await aiMiddlewareAgent(scenario, { steps, gate, beginAttempt: () => (ranHere = new Set()), journaled, toolStep, emit })
    : agent;
  const service = restate.service({
    name: run.serviceName,
    handlers: { [HANDLER]: handler },
    options: { retryPolicy: RETRY_POLICY, hooks: [runStarts] },
  });
  if (inputs.serve !== undefined) await inputs.serve(service, run.servicePort);
  else await restate.serve({ services: [service], port: run.servicePort, logger: () => {} });

  await registerUnlessKnown(inputs.adminUrl, run);
  const invocationId = await sendOnce(inputs.ingressUrl, run, scenario.customerMessage);
  const output = await invocationOutput(inputs.ingressUrl, inputs.adminUrl, invocationId);
  emit({ kind: 'invocation-done' });

  // The answer goes out once, after the invocation's output is recorded: a kill between the record
  // and the delivery leaves a finished invocation whose answer the next life delivers.
  const outbox = new FileOutbox(join(stateDir, RESTATE_STATE_FILES.outbox));
  if (outbox.delivered(scenario.id).length === 0) {
    outbox.deliver(scenario.id, output.answer);
    emit({ kind: 'answer-delivered' });
  }
  shop.close();
  return output.conversation;
}
