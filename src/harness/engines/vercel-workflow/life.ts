// One life of a Vercel Workflow run on a killpoint scenario, inside its own process. The run lives
// in a local world (@workflow/world-local) in the state folder; the life registers the workflow
// and step bundles' handlers (ordered: step-order.ts) before the world starts (a start re-enqueues
// the runs that are still active: that is the recovery), installs the host its steps call
// (host.ts), then starts the run unless the world has one already, waits for its output and
// delivers the answer once.
//
// The run's id is the world's own: run_created is the first thing a run writes, and a life that
// finds a run resumes it, so a kill before run_created leaves no run (the next life starts the
// only one) and a kill after it never starts a second. A world with more than one run is not a
// state any life of ours leaves: bad input.
//
// Events, at the engine's own moments, each emitted right after the world's event is written
// (world.events.create wrapped): run-created, run-started, step-created, step-started,
// step-recorded (step_completed), run-completed; the scripted model's model-request, model-chunk
// and model-reply inside the model step; a tool step's tool-start, shop-commit and tool-result;
// answer-delivered. The sink kills the process right after the kill point (SIGKILL: no finally).

import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { createLocalWorld } from '@workflow/world-local';
import { setWorld } from 'workflow/runtime';
import { getRun, start } from 'workflow/api';
import { ScriptedLanguageModel, type ScriptedModelEvent } from '../../../ai-sdk/scripted-language-model.js';
import type { AssistantMessage, Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { Shop } from '../../../model/shop.js';
import { FileOutbox } from '../../../model/file-stores.js';
import { isWriteTool, TOOL_NAMES, type ToolName } from '../../../model/tools.js';
import type { EmitEvent } from '../../process/child-main.js';
import { streamReply } from '../../process/stream-reply.js';
import type { VercelConfig } from './config.js';
import { answerOf, conversationOfMessages } from './convert.js';
import { HOST_KEY, type StepContext, type WorkflowHost } from './host.js';
import { VW_STATE_FILES, type WorkflowIds } from './run-spec.js';
import { StepNumbers, shortStepName } from './step-numbers.js';
import { OrderedWrites } from './ordered-writes.js';
import { StepOrder, type QueueHandler } from './step-order.js';
import './event-kinds.js';

/** The bundles' exports a life registers: each a queue handler. */
export interface LoadedBundles {
  workflows: { POST: QueueHandler };
  steps: { POST: QueueHandler };
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
}

/** A world that holds more than one run: no life of ours leaves one, so it is not a state to resume. */
export class NotOneRun extends Error {
  constructor(runs: number, worldDir: string) {
    super(`vercel-workflow: the local world in ${worldDir} holds ${runs} runs; a killpoint run keeps exactly one, so it cannot be resumed`);
    this.name = 'NotOneRun';
  }
}

/** The key a write carries: the run and the step (the DurableAgent's tool call id, or the plain step's id), never a fresh random id. */
export function vercelIdempotencyKey(runId: string, stepOrCallId: string): string {
  return `${runId}:${stepOrCallId}`;
}

interface EventsApi {
  create(runId: string | null, data: { eventType: string; correlationId?: string; eventData?: { stepName?: string } }, params?: unknown): Promise<unknown>;
}

export async function runVercelLife(inputs: VercelLifeInputs): Promise<Conversation> {
  const { scenario, config, stateDir, emit, bundles } = inputs;
  const worldDir = join(stateDir, VW_STATE_FILES.world);
  mkdirSync(worldDir, { recursive: true });
  const shop = Shop.open(join(stateDir, VW_STATE_FILES.shop));
  const order = new StepOrder(inputs.picks, inputs.onPick);
  const steps = new StepNumbers(worldDir);
  /** The tool call each step of this life ran, for its record's name. */
  const callOfStep = new Map<string, string>();
  let randomKeys: (() => number) | null = null;
  let modelCalls = 0;

  // A conversation the scripted model rejects fails the life at once, as a model API's 400 would
  // (the SDK would retry the step, then fail the run, after its own delays).
  let reject: (error: unknown) => void = () => undefined;
  const rejected = new Promise<never>((_, r) => (reject = r));
  // The SDK's returnValue looks at the run once a second; the life knows at once when this life
  // ends it (run_completed or run_failed written), and asks then.
  let ended: () => void = () => undefined;
  const runEnded = new Promise<void>((resolve) => (ended = resolve));

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
    async reply(conversation): Promise<AssistantMessage> {
      const modelCall = modelCalls++;
      emit({ kind: 'model-request', modelCall });
      let reply;
      try {
        reply = script.reply(conversation);
      } catch (error) {
        reject(error);
        throw error;
      }
      await streamReply(reply, modelCall, emit);
      return reply.message;
    },
  };
  (globalThis as Record<string, unknown>)[HOST_KEY] = host;

  const world = createLocalWorld({ dataDir: worldDir, recoverActiveRuns: true });
  const events = world.events as unknown as EventsApi;
  const create = events.create.bind(events);
  const writes = new OrderedWrites();
  // Each event is emitted right after its write, before the next write starts: a kill there
  // leaves exactly the events written up to it.
  const emitFor = (data: Parameters<EventsApi['create']>[1]): void => {
    const stepId = data.correlationId ?? '';
    const stepName = shortStepName(data.eventData?.stepName);
    switch (data.eventType) {
      case 'run_created':
        emit({ kind: 'run-created' });
        break;
      case 'run_started':
        emit({ kind: 'run-started' });
        break;
      case 'step_created':
        if (steps.add(stepId)) emit({ kind: 'step-created', step: steps.numberOf(stepId), stepName });
        break;
      case 'step_started':
        emit({ kind: 'step-started', step: steps.numberOf(stepId), stepName });
        break;
      case 'step_completed': {
        const callId = callOfStep.get(stepId);
        emit({ kind: 'step-recorded', step: steps.numberOf(stepId), stepName, ...(callId === undefined ? {} : { callId }) });
        break;
      }
      case 'run_completed':
        emit({ kind: 'run-completed' });
        ended();
        break;
      case 'run_failed':
      case 'run_cancelled':
        ended();
        break;
    }
  };
  events.create = (runId, data, params) =>
    writes.write(async () => {
      const written = await create(runId, data, params);
      emitFor(data);
      return written;
    }, data.eventType === 'step_created' ? data.correlationId : undefined);

  // The handlers before the world starts: its start re-enqueues the active run at once.
  world.registerHandler('__wkf_workflow_', order.workflowHandler(bundles.workflows.POST));
  world.registerHandler('__wkf_step_', order.stepHandler(bundles.steps.POST, (stepId) => steps.gateName(stepId)));
  setWorld(world);

  const runs = (await world.runs.list({ resolveData: 'none' })).data;
  if (runs.length > 1) throw new NotOneRun(runs.length, worldDir);
  await world.start!();
  const runId = runs[0]?.runId ?? (await startRun(bundles.ids, config, scenario));

  const output = await Promise.race([getRun(runId).returnValue, runEnded.then(() => getRun(runId).returnValue), rejected]);
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
