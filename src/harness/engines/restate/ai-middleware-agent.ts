// The handler of the ai-middleware systems: the agent loop on the AI SDK as Restate's guide writes
// it for parallel tool calls. Each turn is a generateText call whose model is wrapped in Restate's
// durableCalls middleware, so the model call is a ctx.run step whose result the journal holds; the
// tools are described to the model without an execute, and the handler runs the reply's calls as
// ctx.run steps side by side through RestatePromise.all. The model is the scenario's scripted model
// in the AI SDK's form.
//
// Why not generateText's own tool loop (tools with an execute, stopWhen): it awaits side-by-side
// tool calls with the native Promise.all, and Restate's SDK (1.17.2) fails such an attempt with
// "awaitNext already pending"; the server retries it, and a step whose entry was not journaled runs
// again in a run never killed. The runs would not repeat, so there would be nothing to compare a
// killed run with.
//
// What killpoint adds, without changing the loop: the context the handler works with observes its
// ctx.run calls (as a user's service is observed, module/life.ts). A model step is numbered as it
// is called (the middleware names every one `calling killpoint`, and they come one at a time);
// when the journal hands back its reply, the reply's tool calls are numbered and announced to the
// gate, so side-by-side tool steps run in the order the interleaving picks choose; when a step's
// journal entry is acknowledged, it is step-recorded.

import * as restate from '@restatedev/restate-sdk';
import type { LanguageModelMiddleware, ModelMessage } from 'ai';
import { answerOf, conversationOfMessages } from '../../../ai-sdk/model-messages.js';
import { ScriptedLanguageModel } from '../../../ai-sdk/scripted-language-model.js';
import type { Scenario } from '../../../model/scenario.js';
import { TOOL_NAMES } from '../../../model/tools.js';
import type { AgentOutput } from './client.js';
import { contextWithRun } from './context-with-run.js';
import type { LifeSteps } from './life-steps.js';

/** A scripted task never needs more turns than this; more means a runaway loop. */
const MAX_TURNS = 200;

/** What durableCalls names each model step: `calling ${model.provider}`. */
const MODEL_STEP = 'calling killpoint';

type RunCall = (name: string, action: () => Promise<unknown>, options?: unknown) => restate.RestatePromise<unknown>;

/** The tool calls of a model step's result (the AI SDK's generate result, as the journal returns it). */
function toolCallIds(result: unknown): string[] {
  const content = (result as { content?: { type: string; toolCallId?: string }[] } | undefined)?.content ?? [];
  return content.flatMap((part) => (part.type === 'tool-call' && part.toolCallId !== undefined ? [part.toolCallId] : []));
}

/**
 * The agent: generateText with the shop's tools, under durableCalls, in a Restate handler. The AI
 * SDK and the middleware are loaded here, when a life of these systems asks for them: the child
 * of the other Restate systems runs without them installed.
 */
export async function aiMiddlewareAgent(scenario: Scenario, life: LifeSteps) {
  const [{ durableCalls }, { generateText, jsonSchema, wrapLanguageModel }] = await Promise.all([import('@restatedev/vercel-ai-middleware'), import('ai')]);
  const { steps, gate, emit } = life;
  // Model calls are numbered from 0 in every life, as the model's own lives number them: the model
  // instance counts the calls this process makes (replayed ones make none).
  const scripted = new ScriptedLanguageModel({ scenario, onEvent: emit });

  /** The handler's context, observing its ctx.run calls; everything else is Restate's own. */
  const observed = (ctx: restate.Context): restate.Context => {
    let nextStep = 0;
    const run: RunCall = (name, action, options) => {
      const model = name === MODEL_STEP;
      if (model) {
        steps.set(name, { step: nextStep++ });
      } else if (!steps.has(name)) {
        throw new restate.TerminalError(`restate: a step named "${name}" that the model did not ask for`);
      }
      const running = (ctx.run as unknown as RunCall).call(ctx, name, action, options);
      return running.map((value, failure) => {
        if (!model) gate.finish(name);
        if (failure !== undefined) throw failure;
        life.journaled(name);
        if (model) {
          const ids = toolCallIds(value);
          for (const id of ids) steps.set(id, { step: nextStep++, callId: id });
          gate.expect(ids);
        }
        return value;
      });
    };
    return contextWithRun(ctx, run);
  };

  const anyObject = jsonSchema<Record<string, unknown>>({ type: 'object' }, { validate: (value) => ({ success: true, value: value as Record<string, unknown> }) });

  // The tools the model may call, described without an execute: the handler runs the calls itself.
  const tools = Object.fromEntries(TOOL_NAMES.map((name) => [name, { description: `The shop's ${name} tool.`, inputSchema: anyObject }]));

  const agent = async (ctx: restate.Context, customerMessage: string): Promise<AgentOutput> => {
    const invocationId = ctx.request().id;
    // The middleware is typed for the AI SDK 5's model interface; the AI SDK 6 calls its wrapGenerate
    // the same way ({ doGenerate, model }), and reads no other field of it.
    const middleware = durableCalls(ctx, { maxRetryAttempts: 3 }) as unknown as LanguageModelMiddleware;
    const model = wrapLanguageModel({ model: scripted, middleware });
    const messages: ModelMessage[] = [{ role: 'user', content: customerMessage }];
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const { response, toolCalls } = await generateText({ model, tools, messages });
      messages.push(...response.messages);
      if (toolCalls.length === 0) {
        const conversation = conversationOfMessages(messages);
        return { answer: answerOf(conversation), conversation };
      }
      // A reply's calls side by side, through Restate's combinator (awaited one by one, as the AI
      // SDK's own tool loop awaits them, two would fail the attempt: "awaitNext already pending").
      const results = await restate.RestatePromise.all(
        toolCalls.map((call) => ctx.run(call.toolCallId, () => life.toolStep({ id: call.toolCallId, name: call.toolName, args: call.input as Record<string, unknown> }, steps.get(call.toolCallId)!.step, invocationId))),
      );
      messages.push({
        role: 'tool',
        content: toolCalls.map((call, i) => ({ type: 'tool-result' as const, toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'json' as const, value: results[i] as never } })),
      });
    }
    throw new restate.TerminalError(`scenario ${scenario.id}: more than ${MAX_TURNS} turns`);
  };

  return (ctx: restate.Context, customerMessage: string): Promise<AgentOutput> => {
    life.beginAttempt();
    return agent(observed(ctx), customerMessage);
  };
}
