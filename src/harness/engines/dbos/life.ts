// One life of a DBOS agent on a killpoint scenario, inside its own process. The agent is a DBOS
// workflow: each model call is a step, each tool call is a step (a reply's calls in Promise.all,
// through the gate), and the workflow returns the answer and the conversation. The life launches
// DBOS with the run's executor id and application version (the same in every life: that is what
// makes DBOS recover the workflow), starts the workflow on the killpoint queue unless it exists
// already (then DBOS's launch has put it back on that queue, which picks it up within
// QUEUE_POLLING_MS), waits for its recorded output, and delivers the answer once.
//
// Events, at the engine's own moments: workflow-started (its status row committed), the model
// step's model-request, model-chunk and model-reply, a tool step's tool-start, shop-commit and
// tool-result, step-recorded after DBOS has committed a step's output, workflow-recorded once the
// workflow's output is recorded, answer-delivered. A step DBOS finds recorded does not run, and
// has no events. The sink kills the process right after the kill point (SIGKILL: no finally).

import { join } from 'node:path';
import { DBOS } from '@dbos-inc/dbos-sdk';
import seedrandom from 'seedrandom';
import type { AssistantMessage, Conversation, ToolCall } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { Shop } from '../../../model/shop.js';
import { isWriteTool, type ToolName, type ToolResult } from '../../../model/tools.js';
import { FileOutbox } from '../../../model/file-stores.js';
import type { DbosConfig } from './config.js';
import { BatchGate } from '../../interleaving.js';
import { installCommitHooks } from './hooks.js';
import { APP_NAME, QUEUE_NAME, DBOS_STATE_FILES, type RunIdentity } from './run-spec.js';
import type { EmitEvent } from '../../process/child-main.js';
import { scriptedModelCall } from '../../process/stream-reply.js';

/** A scripted task never needs more turns than this; more means a runaway loop. */
const MAX_TURNS = 200;
/** How often a life asks the database whether the workflow's output is recorded. */
const RESULT_POLLING_MS = 10;

export interface DbosLifeInputs {
  scenario: Scenario;
  config: DbosConfig;
  stateDir: string;
  databaseUrl: string;
  run: RunIdentity;
  lifeIndex: number;
  /** The interleaving picks this life may use (those its predecessors left). */
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /**
   * For a life run inside another process: the pool of connections DBOS uses for its system
   * database and the logger it logs to, both of which that process cuts off at the kill point. By
   * default DBOS makes its own pool and logs to the console.
   */
  inProcess?: { systemDatabasePool: unknown; logger: unknown };
  /** Opens the shop; by default Shop.open. A life run inside another process opens it through its fence. */
  openShop?: (path: string) => Shop;
}

interface WorkflowOutput {
  answer: string;
  conversation: Conversation;
}

/** The key a write carries: the run (workflow) and the step (tool call), never a fresh random id. */
export function dbosIdempotencyKey(workflowId: string, toolCallId: string): string {
  return `${workflowId}:${toolCallId}`;
}

/** DBOS settings of a life: the same executor and version in every life, unless broken on purpose. */
export function dbosSettings(inputs: Pick<DbosLifeInputs, 'config' | 'databaseUrl' | 'run' | 'lifeIndex' | 'inProcess'>) {
  const { config, run } = inputs;
  return {
    name: APP_NAME,
    systemDatabaseUrl: inputs.databaseUrl,
    applicationVersion: run.appVersion,
    executorID: config.newExecutorEachLife ? `${run.executorId}-life-${inputs.lifeIndex}` : run.executorId,
    logLevel: 'error',
    runMigrations: false,
    // Found by trying: through PGlite's socket server, DBOS's default pool of 10 and LISTEN/NOTIFY
    // made some recoveries see no workflow row; one connection and polling never did.
    ...(config.backend === 'pglite' ? { systemDatabasePoolSize: 1, useListenNotify: false } : {}),
    ...(inputs.inProcess === undefined ? {} : { systemDatabasePool: inputs.inProcess.systemDatabasePool as never, logger: inputs.inProcess.logger as never }),
  };
}

/** Runs the life to its end and returns the conversation the workflow recorded. */
export async function runDbosLife(inputs: DbosLifeInputs): Promise<Conversation> {
  const { scenario, config, stateDir, run, emit } = inputs;
  const shop = (inputs.openShop ?? Shop.open)(join(stateDir, DBOS_STATE_FILES.shop));
  const script = new ScriptedModel(scenario);
  const gate = new BatchGate(inputs.picks, inputs.onPick);
  const randomKeys = seedrandom(`${run.runKey}|life ${inputs.lifeIndex}`);
  let modelCalls = 0;

  // The step whose output DBOS is about to record (one at a time: the gate sees to that), and
  // whether the next workflow status commit is the start of ours.
  let recording: { step: number; callId?: string } | null = null;
  let starting = false;
  installCommitHooks({
    stepCommitted() {
      if (recording === null) return; // an error record, or a step of DBOS's own
      const { step, callId } = recording;
      recording = null;
      emit(callId === undefined ? { kind: 'step-recorded', step } : { kind: 'step-recorded', step, callId });
    },
    workflowInitCommitted() {
      if (!starting) return;
      starting = false;
      emit({ kind: 'workflow-started' });
    },
  });

  /** Asserts that killpoint's step numbers are DBOS's function ids (what step-recorded names). */
  const checkStep = (step: number): void => {
    if (DBOS.stepID !== step) throw new Error(`DBOS numbered the step ${DBOS.stepID}, killpoint ${step}: the step numbering changed`);
  };

  const modelStep = async (conversation: Conversation, step: number): Promise<AssistantMessage> => {
    checkStep(step);
    const message = await scriptedModelCall(script, conversation, modelCalls++, emit);
    recording = { step };
    return message;
  };

  const toolStep = async (call: ToolCall, step: number): Promise<ToolResult> => {
    checkStep(step);
    const tool = call.name as ToolName;
    await gate.pass(call.id);
    emit({ kind: 'tool-start', callId: call.id, tool, step });
    await gate.pass(call.id);
    const key = !isWriteTool(tool) || config.keys === 'none' ? null
      : config.keys === 'stable' ? dbosIdempotencyKey(run.runKey, call.id)
      : `${run.runKey}:${Math.floor(randomKeys() * 2 ** 48).toString(16).padStart(12, '0')}`;
    const done = shop.call(tool, call.args, key);
    if (done.committed) emit({ kind: 'shop-commit', callId: call.id, tool, step, write: true });
    await gate.pass(call.id);
    emit({ kind: 'tool-result', callId: call.id, tool, step, write: done.committed, ...(done.result.ok ? {} : { refused: done.result.refused }) });
    recording = { step, callId: call.id };
    return done.result;
  };

  const agent = DBOS.registerWorkflow(async (customerMessage: string): Promise<WorkflowOutput> => {
    const conversation: Conversation = [{ role: 'user', content: customerMessage }];
    let step = 0;
    for (let turn = 0; turn < MAX_TURNS; turn++) {
      const modelStepNumber = step++;
      const reply = await DBOS.runStep(() => modelStep(conversation, modelStepNumber), { name: 'model' });
      conversation.push(reply);
      if (reply.toolCalls.length === 0) return { answer: reply.content, conversation };
      const calls = reply.toolCalls.map((call) => ({ call, step: step++ }));
      gate.expect(calls.map(({ call }) => call.id));
      const results = await Promise.all(
        calls.map(({ call, step: s }) => DBOS.runStep(() => toolStep(call, s), { name: call.name }).finally(() => gate.finish(call.id))),
      );
      // Results come back in call order, whatever order the steps ran in.
      for (const [i, call] of reply.toolCalls.entries()) conversation.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(results[i]) });
    }
    throw new Error(`scenario ${scenario.id}: more than ${MAX_TURNS} turns`);
  }, { name: 'killpoint-agent' });

  DBOS.setConfig(dbosSettings(inputs));
  await DBOS.launch();
  let handle;
  if ((await DBOS.getWorkflowStatus(run.workflowId)) === null) {
    starting = true;
    handle = await DBOS.startWorkflow(agent, { workflowID: run.workflowId, queueName: QUEUE_NAME })(scenario.customerMessage);
  } else {
    handle = DBOS.retrieveWorkflow<WorkflowOutput>(run.workflowId);
  }
  const output = await handle.getResult({ pollingIntervalMs: RESULT_POLLING_MS });
  emit({ kind: 'workflow-recorded' });

  // The answer goes out once, after the workflow's output is recorded: a kill between the record
  // and the delivery leaves a finished workflow whose answer the next life delivers.
  const outbox = new FileOutbox(join(stateDir, DBOS_STATE_FILES.outbox));
  if (outbox.delivered(scenario.id).length === 0) {
    outbox.deliver(scenario.id, output.answer);
    emit({ kind: 'answer-delivered' });
  }
  shop.close();
  return output.conversation;
}
