// One life of a LangGraph agent on a killpoint scenario, inside its own process: open the durable
// stores in the state folder (the shop, LangGraph's checkpoints, the outbox), build the graph,
// find where the thread stands, run or resume it to its end, and deliver the answer once. Every
// instrumented moment is written as an event; the sink kills the process right after the kill
// point (SIGKILL: no finally, no flush).

import { join } from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import type { Conversation } from '../../../model/conversation.js';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { FileOutbox } from '../../../model/file-stores.js';
import { ScriptedChatModel } from './chat-model.js';
import { assertCheckpointDatabase } from './checkpoint-file.js';
import { APPROVAL_SHAPE, type LangGraphConfig } from './config.js';
import { runApprovalThread } from './approval-run.js';
import { toConversation } from './convert.js';
import { EventedSqliteSaver } from './evented-saver.js';
import { Gate } from './gate.js';
import { buildGraph } from './graphs.js';
import { finalAnswer, threadStatus } from './resume.js';
import { LANGGRAPH_STATE_FILES, type LangGraphFaults } from './run-spec.js';
import { shopTools } from './shop-tools.js';
import type { EmitEvent } from '../../process/child-main.js';
import type { LifeFence } from '../../in-process/fence.js';

export interface LangGraphLifeInputs {
  scenario: Scenario;
  config: LangGraphConfig;
  stateDir: string;
  /** The interleaving picks this life may use (those its predecessors left). */
  picks: number[];
  emit: EmitEvent;
  /** Told of every interleaving pick as it is taken. */
  onPick: (pick: number, width: number) => void;
  faults?: LangGraphFaults;
  /** Run in killpoint's own process: the stores are opened through it, so that a kill closes them. */
  fence?: LifeFence;
}

/** Runs the life to its end and returns the conversation the thread holds then. */
export async function runLangGraphLife(inputs: LangGraphLifeInputs): Promise<Conversation> {
  const { scenario, config, stateDir, emit } = inputs;
  const threadId = scenario.id;
  const checkpoints = join(stateDir, LANGGRAPH_STATE_FILES.checkpoints);
  assertCheckpointDatabase(checkpoints);
  const { fence } = inputs;
  const shop = Shop.open(join(stateDir, LANGGRAPH_STATE_FILES.shop));
  fence?.hold(shop, (s) => s.close());
  const saver = inputs.faults?.checkpointer === 'memory' ? new MemorySaver() : EventedSqliteSaver.openFile(checkpoints, emit);
  if (saver instanceof EventedSqliteSaver) fence?.hold(saver, (s) => s.close());
  const gate = new Gate(inputs.picks, inputs.onPick);
  const model = new ScriptedChatModel({ scenario, onEvent: emit });
  const tools = shopTools({ shop, gate, onEvent: emit, keys: config.keys });
  const graph = buildGraph(config.shape, model, tools, saver);

  const runConfig = { configurable: { thread_id: threadId }, durability: config.durability, recursionLimit: 200 };
  const input = { messages: [new HumanMessage(scenario.customerMessage)] };
  if (config.shape === APPROVAL_SHAPE) {
    if (!(saver instanceof EventedSqliteSaver)) throw new Error('the approval shape waits for a person: it needs the SQLite checkpointer');
    await runApprovalThread({ graph, saver, threadId, input, runConfig, stateDir, emit, effectsDone: () => shop.writeLog().length });
  } else {
    const status = await threadStatus(graph, saver, threadId, config.resume);
    if (status === 'new') await graph.invoke(input, runConfig);
    else if (status === 'unfinished') await graph.invoke(null, runConfig);
  }

  // The answer goes out once, after the graph has finished: a kill between the graph's last save
  // and the delivery leaves a finished thread whose answer the next life delivers.
  const outbox = new FileOutbox(join(stateDir, LANGGRAPH_STATE_FILES.outbox));
  const answer = await finalAnswer(graph, threadId);
  if (answer !== null && outbox.delivered(threadId).length === 0) {
    fence?.assertAlive();
    outbox.deliver(threadId, answer);
    emit({ kind: 'answer-delivered' });
  }
  const state = await graph.getState({ configurable: { thread_id: threadId } });
  if (saver instanceof EventedSqliteSaver) saver.close();
  shop.close();
  return toConversation(state.values?.messages ?? []);
}
