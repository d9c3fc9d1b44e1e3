// One life of the bundled agent as a Mastra workflow (workflow.ts), inside its own process: the run
// started or restarted as Mastra recovers it (recovery.ts), and the answer delivered once, after the
// run's success is persisted.
//
// Events, at the engine's own moments: a model step's model-request, model-chunk and model-reply,
// a tool step's tool-start, shop-commit and tool-result, and after every snapshot Mastra persists,
// step-recorded for each step whose result it records anew, or else snapshot-persisted. The sink
// kills the process right after the kill point (SIGKILL).

import { join } from 'node:path';
import type { Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { ScriptedModel } from '../../../model/scripted-model.js';
import { Shop } from '../../../model/shop.js';
import { FileOutbox } from '../../../model/file-stores.js';
import { isWriteTool, type ToolName } from '../../../model/tools.js';
import { BatchGate } from '../../interleaving.js';
import type { EmitEvent } from '../../process/child-main.js';
import { scriptedModelCall } from '../../process/stream-reply.js';
import type { MastraConfig } from './config.js';
import { runAsMastraRecovers } from './recovery.js';
import { MASTRA_STATE_FILES, runIdOf } from './run-spec.js';
import { agentStepRecord } from './snapshots.js';
import { agentWorkflow, type AgentSteps, type ModelStepOutput } from './workflow.js';

export interface MastraLifeInputs {
  scenario: Scenario;
  config: MastraConfig;
  stateDir: string;
  /** The interleaving picks this life may use (those its predecessors left). */
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
}

/** The key a write carries: the run and the tool call, never a fresh random id. */
export const mastraIdempotencyKey = (runId: string, callId: string): string => `${runId}:${callId}`;

function agentSteps(inputs: MastraLifeInputs, shop: Shop): AgentSteps {
  const { scenario, config, emit } = inputs;
  const script = new ScriptedModel(scenario);
  const gate = new BatchGate(inputs.picks, inputs.onPick);
  let modelCalls = 0;
  return {
    model: (conversation: Conversation) => scriptedModelCall(script, conversation, modelCalls++, emit),
    async tool(call, step, batch) {
      const tool = call.name as ToolName;
      // Every call of the reply runs again together (Mastra records a .parallel() group at once).
      gate.expect(batch.map((c) => c.id));
      try {
        await gate.pass(call.id);
        emit({ kind: 'tool-start', callId: call.id, tool, step });
        await gate.pass(call.id);
        const key = isWriteTool(tool) && config.keys === 'stable' ? mastraIdempotencyKey(runIdOf(scenario.id), call.id) : null;
        const done = shop.call(tool, call.args, key);
        if (done.committed) emit({ kind: 'shop-commit', callId: call.id, tool, step, write: true });
        await gate.pass(call.id);
        emit({ kind: 'tool-result', callId: call.id, tool, step, write: done.committed, ...(done.result.ok ? {} : { refused: done.result.refused }) });
        return done.result;
      } finally {
        gate.finish(call.id);
      }
    },
  };
}

/** Runs the life to its end and returns the conversation the run recorded. */
export async function runMastraLife(inputs: MastraLifeInputs): Promise<Conversation> {
  const { scenario, stateDir, emit } = inputs;
  const shop = Shop.open(join(stateDir, MASTRA_STATE_FILES.shop));
  const output = (await runAsMastraRecovers({
    storageFile: join(stateDir, MASTRA_STATE_FILES.storage),
    workflow: agentWorkflow(scenario, agentSteps(inputs, shop), { endsBy: inputs.config.endsBy }),
    runId: runIdOf(scenario.id),
    input: { customerMessage: scenario.customerMessage },
    emit,
    recordOf: agentStepRecord,
  })) as ModelStepOutput;
  if (output.answer === null) throw new Error(`mastra: the run ended without an answer`);

  // The answer goes out once, after the run's success is persisted: a kill between the two leaves
  // a run whose restart() answers its result from the snapshot, and the next life delivers it.
  const outbox = new FileOutbox(join(stateDir, MASTRA_STATE_FILES.outbox));
  if (outbox.delivered(scenario.id).length === 0) {
    outbox.deliver(scenario.id, output.answer);
    emit({ kind: 'answer-delivered' });
  }
  shop.close();
  return output.conversation;
}
