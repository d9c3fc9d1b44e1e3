// One life of a user's LangGraph agent, inside its own process: the user's module (loaded by the
// bundled child, or here through tsx), the graph built with killpoint's checkpointer, where the
// thread stands, then the run or its resumption to its end with the observer in its callbacks,
// and what the run did read back for the parent (the module's effects, the final answer, the
// graph's state).

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { canonicalJson } from '../../../../model/canonical-json.js';
import type { Conversation } from '../../../../model/conversation.js';
import type { EmitEvent } from '../../../process/child-main.js';
import type { LifeFence } from '../../../in-process/fence.js';
import { effectRecords } from '../../../user-module/effects.js';
import { effectsReader, exportedFunction, moduleOfLife, userCall, type BundledModule } from '../../../user-module/load.js';
import { UserModuleSetupError } from '../../../user-module/setup-error.js';
import { writeModuleStores } from '../../../user-module/stores.js';
import { Turns } from '../../../user-module/turns.js';
import { assertCheckpointDatabase } from '../checkpoint-file.js';
import { toConversation } from '../convert.js';
import { EventedSqliteSaver } from '../evented-saver.js';
import { Gate } from '../gate.js';
import { GraphObserver } from './observer.js';
import { pendingWait, runAcrossWaits, type ThreadStatus, type WaitingGraph } from './waits.js';
import { MODULE_STATE_FILES, type LangGraphModuleContext, type LangGraphModuleSpec } from './spec.js';

/** The thread every run of a user's graph is on: killpoint's, the same in every life. */
export const MODULE_THREAD_ID = 'killpoint-run';

/** What the bundled child hands the life: the user's module (or why it failed to load), and the copy of LangGraph it uses. */
export interface LoadedGraphModule extends BundledModule {
  /** The graph's own @langchain/langgraph (its Command resumes a wait). */
  langgraph?: unknown;
}

export interface ModuleLifeInputs {
  spec: LangGraphModuleSpec;
  /** The module as the bundled child loaded it; absent, the life loads it (through tsx). */
  loaded?: LoadedGraphModule;
  stateDir: string;
  /** The life's number in its run (0: the life that starts it, whose waits without a turn are bad input). */
  lifeIndex?: number;
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /** Run in killpoint's own process: the checkpointer is opened through it, so that a kill closes it. */
  fence?: LifeFence;
}

interface UserGraph extends WaitingGraph {
  getState(config: Record<string, unknown>): Promise<{ values?: Record<string, unknown>; next?: string[]; config?: { configurable?: Record<string, unknown> }; tasks?: { name?: string; interrupts?: { id?: string; value?: unknown }[] }[] }>;
  checkpointer?: unknown;
}

interface Message {
  getType?: () => string;
  content?: unknown;
  tool_calls?: unknown[];
}

/** Runs the life to its end and returns the conversation the thread holds then (null when its state has no messages). */
export async function runModuleLife(inputs: ModuleLifeInputs): Promise<Conversation | null> {
  const { spec, stateDir, emit } = inputs;
  const module = await moduleOfLife(inputs.loaded, spec.module, spec.moduleArg);
  const createGraph = exportedFunction(module, spec.graphExport, spec.moduleArg);
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg); // asked for before anything runs

  const checkpoints = join(stateDir, MODULE_STATE_FILES.checkpoints);
  assertCheckpointDatabase(checkpoints);
  const dataDir = join(stateDir, MODULE_STATE_FILES.data);
  mkdirSync(dataDir, { recursive: true });
  const saver = EventedSqliteSaver.openFile(checkpoints, emit);
  inputs.fence?.hold(saver, (s) => s.close());
  const ctx: LangGraphModuleContext = { checkpointer: saver, dataDir, threadId: MODULE_THREAD_ID };

  const graph = (await userCall(() => createGraph(ctx), spec.graphExport)) as UserGraph;
  mustUseTheCheckpointer(graph, saver, spec.graphExport);
  const gate = new Gate(inputs.picks, inputs.onPick);
  const observer = new GraphObserver(emit, gate);
  const thread = { configurable: { thread_id: MODULE_THREAD_ID } };

  const status = await threadStatus(graph, saver);
  const turns = new Turns(stateDir, spec.resume, (inputs.lifeIndex ?? 0) === 0);
  try {
    const command = await commandOf(inputs.loaded, spec.module);
    const effectsDone = async () => effectRecords(await userCall(() => readEffects(ctx), spec.effectsExport), spec.effectsExport).length;
    const run = { graph, config: { ...thread, callbacks: [observer], recursionLimit: 200 }, thread, turns, emit, effectsDone, command, answersTaken: () => saver.answersTaken };
    // An ended run goes on no further, unless a turn is delivered to it again (--redeliver) or a later message comes.
    await runAcrossWaits(run, status === 'new' ? spec.input : null, status);
    turns.mustAllBeHanded();
  } catch (error) {
    // A life that stops on an error has still done what it did: the verdict reads its effects.
    await readBack(graph, ctx, spec, stateDir, module, inputs.fence).catch(() => undefined);
    throw error;
  }
  const messages = await readBack(graph, ctx, spec, stateDir, module, inputs.fence);
  saver.close();
  if (messages === null) return null;
  return toConversation(messages.filter((m) => m.getType?.() !== 'system') as never);
}

/** LangGraph's Command from the copy the graph uses: the bundle's, else the one the module resolves. */
async function commandOf(loaded: LoadedGraphModule | undefined, moduleFile: string): Promise<(resume: unknown) => unknown> {
  const own = (loaded?.langgraph as { Command?: new (args: { resume: unknown }) => unknown } | undefined)?.Command;
  const Command = own ?? ((await import(pathToFileURL(createRequire(moduleFile).resolve('@langchain/langgraph')).href)) as { Command: new (args: { resume: unknown }) => unknown }).Command;
  return (resume) => new Command({ resume });
}

/** Writes what the run did for the parent (its effects, answer and state) and returns the thread's messages (null when its state has none). */
async function readBack(graph: UserGraph, ctx: LangGraphModuleContext, spec: LangGraphModuleSpec, stateDir: string, module: Record<string, unknown>, fence?: LifeFence): Promise<Message[] | null> {
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg);
  const state = await graph.getState({ configurable: { thread_id: MODULE_THREAD_ID } });
  const { messages, ...rest } = state.values ?? {};
  const list = (Array.isArray(messages) ? messages : []) as Message[];
  const effects = effectRecords(await userCall(() => readEffects(ctx), spec.effectsExport), spec.effectsExport);
  // A life killed in process writes nothing more (a process would be gone).
  fence?.assertAlive();
  writeModuleStores(stateDir, {
    effects,
    answer: finalAnswer(list),
    state: canonicalJson(rest),
  });
  return Array.isArray(messages) ? list : null;
}

/** new: nothing saved yet; waiting: stopped at interrupt(); unfinished: tasks left, or a step's writes saved without its checkpoint; finished: nothing to run. */
async function threadStatus(graph: UserGraph, saver: EventedSqliteSaver): Promise<ThreadStatus> {
  const config = { configurable: { thread_id: MODULE_THREAD_ID } };
  const state = await graph.getState(config);
  if (state.config?.configurable?.checkpoint_id === undefined) return 'new';
  if ((await pendingWait(graph, config)) !== null) return 'waiting';
  if ((state.next ?? []).length > 0) return 'unfinished';
  const pending = (await saver.getTuple(config))?.pendingWrites?.length ?? 0;
  return pending === 0 ? 'finished' : 'unfinished';
}

function finalAnswer(messages: readonly Message[]): string | null {
  const last = messages.at(-1);
  if (last?.getType?.() !== 'ai' || (last.tool_calls?.length ?? 0) > 0) return null;
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
}

/** The graph must keep its checkpoints where killpoint can see them and a recovery can read them. */
function mustUseTheCheckpointer(graph: UserGraph, saver: EventedSqliteSaver, exportName: string): void {
  if (typeof graph?.invoke !== 'function' || typeof graph.getState !== 'function') throw new UserModuleSetupError(`${exportName}(ctx) returned ${graph === null || typeof graph !== 'object' ? String(graph) : 'an object without invoke and getState'}: expected a compiled graph`);
  if (graph.checkpointer === saver) return;
  const own = graph.checkpointer as { constructor?: { name?: string } } | undefined | boolean;
  if (own === undefined || own === false || own === true) throw new UserModuleSetupError(`${exportName}(ctx): the graph was compiled without ctx.checkpointer (compile({ checkpointer: ctx.checkpointer })): a kill would leave nothing to resume from`);
  const name = (own as { constructor?: { name?: string } }).constructor?.name ?? 'another checkpointer';
  const why = name === 'MemorySaver' ? ', which keeps nothing across processes' : '';
  throw new UserModuleSetupError(`${exportName}(ctx): the graph was compiled with ${name}${why}, not ctx.checkpointer: compile({ checkpointer: ctx.checkpointer })`);
}
