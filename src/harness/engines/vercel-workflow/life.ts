// One life of a Vercel Workflow run on a killpoint scenario, inside its own process. The run lives
// in a local world in the state folder (world-run.ts: the handlers, the one run, started or
// resumed, its world events); the life installs the host its steps call (host.ts), waits for the
// run's output and delivers the answer once.
//
// Events beside the world's (world-run.ts): the scripted model's model-request, model-chunk and
// model-reply inside the model step; a tool step's tool-start, shop-commit and tool-result;
// answer-delivered. The sink kills the process right after the kill point (SIGKILL: no finally).

import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { start } from 'workflow/api';
import { ScriptedLanguageModel, type ScriptedModelEvent } from '../../../ai-sdk/scripted-language-model.js';
import type { AssistantMessage, Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { Shop } from '../../../model/shop.js';
import { FileOutbox } from '../../../model/file-stores.js';
import { isWriteTool, TOOL_NAMES, type ToolName } from '../../../model/tools.js';
import type { EmitEvent } from '../../process/child-main.js';
import { scriptedModelCall } from '../../process/stream-reply.js';
import type { VercelConfig } from './config.js';
import { answerOf, conversationOfMessages } from '../../../ai-sdk/model-messages.js';
import { HOST_KEY, type StepContext, type WorkflowHost } from './host.js';
import { VW_STATE_FILES, type WorkflowIds } from './run-spec.js';
import { runInWorld, type WorldHandlers } from './world-run.js';

/** The bundles' exports a life registers (each a queue handler), and killpoint's workflows' ids. */
export interface LoadedBundles extends WorldHandlers {
  ids: WorkflowIds;
}

export interface VercelLifeInputs {
  scenario: Scenario;
  config: VercelConfig;
  stateDir: string;
  lifeIndex: number;
  picks: number[];
  bundles: LoadedBundles;
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /** Opens the shop (a life in killpoint's process opens it through its fence). */
  openShop?: (path: string) => Shop;
  /** Handed the local world once it is made (a life in killpoint's process closes it at its kill). */
  holdWorld?: (world: { close?(): Promise<void> }) => void;
}

/** The key a write carries: the run and the step (the DurableAgent's tool call id, or the plain step's id), never a fresh random id. */
export function vercelIdempotencyKey(runId: string, stepOrCallId: string): string {
  return `${runId}:${stepOrCallId}`;
}

export async function runVercelLife(inputs: VercelLifeInputs): Promise<Conversation> {
  const { scenario, config, stateDir, emit, bundles } = inputs;
  const shop = (inputs.openShop ?? Shop.open)(join(stateDir, VW_STATE_FILES.shop));
  /** The tool call each step of this life ran, for its record's name. */
  const callOfStep = new Map<string, string>();
  let randomKeys: (() => number) | null = null;
  let modelCalls = 0;

  // A conversation the scripted model rejects fails the life at once, as a model API's 400 would
  // (the SDK would retry the step, then fail the run, after its own delays).
  let reject: (error: unknown) => void = () => undefined;
  const rejected = new Promise<never>((_, r) => (reject = r));

  const modelEvents = (event: ScriptedModelEvent): void => {
    // Each model step makes its own model: its calls are numbered in the life, as DBOS's are.
    if (event.kind === 'model-request') modelCalls++;
    emit({ ...event, modelCall: modelCalls - 1 });
  };

  const keyOf = (tool: ToolName, step: StepContext): string | null => {
    if (!isWriteTool(tool) || config.keys === 'none') return null;
    if (config.keys === 'stable') return vercelIdempotencyKey(step.runId, config.shape === 'agent' ? step.callId : step.stepId);
    randomKeys ??= seedrandom(`${step.runId}|life ${inputs.lifeIndex}`);
    return `${step.runId}:${Math.floor(randomKeys() * 2 ** 48).toString(16).padStart(12, '0')}`;
  };

  const script = new ScriptedModel(scenario);
  const host: WorkflowHost = {
    tool(name, args, step) {
      const tool = name as ToolName;
      const callId = step.callId;
      callOfStep.set(step.stepId, callId);
      emit({ kind: 'tool-start', callId, tool });
      const done = shop.call(tool, args, keyOf(tool, step));
      if (done.committed) emit({ kind: 'shop-commit', callId, tool, write: true });
      emit({ kind: 'tool-result', callId, tool, write: done.committed, ...(done.result.ok ? {} : { refused: done.result.refused }) });
      return done.result;
    },
    languageModel() {
      const model = new ScriptedLanguageModel({ scenario, onEvent: modelEvents });
      const stream = model.doStream.bind(model);
      model.doStream = async (options) => {
        try {
          return await stream(options);
        } catch (error) {
          reject(error);
          throw error;
        }
      };
      return model;
    },
    reply: (conversation): Promise<AssistantMessage> =>
      scriptedModelCall(script, conversation, modelCalls++, emit, (error) => {
        reject(error);
        return error;
      }),
  };
  (globalThis as Record<string, unknown>)[HOST_KEY] = host;

  const output = await runInWorld({
    worldDir: join(stateDir, VW_STATE_FILES.world),
    handlers: bundles,
    picks: inputs.picks,
    onPick: inputs.onPick,
    emit,
    start: () => startRun(bundles.ids, config, scenario),
    callOfStep: (stepId) => callOfStep.get(stepId),
    failed: rejected,
    ...(inputs.holdWorld === undefined ? {} : { holdWorld: inputs.holdWorld }),
  });
  const conversation = config.shape === 'agent' ? conversationOfMessages((output as { messages: never[] }).messages) : (output as { conversation: Conversation }).conversation;

  // The answer goes out once, after the run's output is recorded: a kill between the record and
  // the delivery leaves a completed run whose answer the next life delivers.
  const outbox = new FileOutbox(join(stateDir, VW_STATE_FILES.outbox));
  if (outbox.delivered(scenario.id).length === 0) {
    outbox.deliver(scenario.id, answerOf(conversation));
    emit({ kind: 'answer-delivered' });
  }
  shop.close();
  return conversation;
}

async function startRun(ids: WorkflowIds, config: VercelConfig, scenario: Scenario): Promise<string> {
  const run = config.shape === 'agent'
    ? await start({ workflowId: ids.agent } as never, [scenario.customerMessage, [...TOOL_NAMES]])
    : await start({ workflowId: ids.steps } as never, [scenario.customerMessage]);
  return run.runId;
}
