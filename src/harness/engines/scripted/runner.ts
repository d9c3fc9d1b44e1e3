// The agent runtime: one life of a process, written as a generator of events. Each `yield` is an
// instrumented moment; the effect an event reports (a commit, a save) has already happened when
// it is yielded. A kill is the driver never asking for the next event: the generator is dropped,
// so no catch, finally or flush of the agent runs, exactly like SIGKILL. Durable state is only
// what the stores hold; the conversation in memory and a half-streamed reply die with the life.
//
// The same generator runs in-process (simulated kills) and in a child process that sends itself
// SIGKILL after event k (real kills).

import seedrandom from 'seedrandom';
import { isFinalAnswer, type AssistantMessage, type Conversation, type Message, type ToolCall } from '../../../model/conversation.js';
import { MAX_STEPS, type Scenario } from '../../../model/scenario.js';
import type { ModelReply, ScriptedModel } from '../../../model/scripted-model.js';
import { isWriteTool, type ToolName, type ToolResult } from '../../../model/tools.js';
import type { EventKind, IntervalKind, RunEvent } from '../../check/events.js';
import { JournalSerializer, parseJournal } from './journal-format.js';
import { parsedText, reserialized } from '../../../model/parsed-texts.js';
import type { Strategy } from './strategies.js';
import type { DurableStores } from '../../../model/stores.js';
import { InterleavingPicks } from '../../interleaving.js';

/**
 * A scripted task never needs more turns than this (a model call and a batch of calls per step, and
 * the answer); more means a runaway loop. It is counted per life, and a life joined to another at a
 * join point starts counting again: a bound no task reaches keeps the two the same.
 */
const MAX_TURNS = 2 * MAX_STEPS + 2;

export interface LifeContext {
  scenario: Scenario;
  model: ScriptedModel;
  strategy: Strategy;
  stores: DurableStores;
  /** 0 for the first life, 1 for the first recovery, ... (seeds the broken random keys). */
  lifeIndex: number;
  interleaving: Interleaving;
  /**
   * Asked at each join point: a moment after at least one event of this life where the life keeps
   * nothing in memory that its durable stores do not hold, so that it goes on exactly as a life
   * started from them would (SessionLives.runHead). True stops the life there; it then returns null.
   */
  atJoinPoint?: () => boolean;
}

/** What a finished life leaves: its conversation, to be validated. */
export interface LifeResult {
  conversation: Conversation;
}

/**
 * Chooses which of several parallel tool calls advances next, by the interleaving rule
 * (src/harness/interleaving.ts). Picks are consumed in order across the whole run; when they run
 * out, every call starts first and then each finishes in call order.
 */
export class Interleaving extends InterleavingPicks {
  override choose(active: number, notStarted: number | undefined): number {
    return super.choose(active, notStarted ?? 0);
  }
}

interface Fiber {
  localMs: number;
}

/** Virtual time and event numbering of one life. */
class LifeClock {
  private nowMs = 0;
  private count = 0;
  private modelCalls = 0;

  /** Events this life has had so far. */
  get events(): number {
    return this.count;
  }

  nextModelCall(): number {
    return this.modelCalls++;
  }

  /**
   * Stamps a new event with its number and time, `waitMs` after the last one (of its fiber). The
   * event is written whole by the caller, its own fields first, then `index: 0, kind, atMs: 0,
   * interval` (the order every event's fields come in); it must be a fresh object.
   */
  event(event: RunEvent, waitMs: number, fiber?: Fiber): RunEvent {
    const atMs = Math.max(this.nowMs, (fiber ? fiber.localMs : this.nowMs) + waitMs);
    this.nowMs = atMs;
    if (fiber) fiber.localMs = atMs;
    event.index = this.count++;
    event.atMs = atMs;
    return event;
  }

  fiber(): Fiber {
    return { localMs: this.nowMs };
  }
}

interface BatchItem {
  call: ToolCall;
  key: string | null;
  step?: number;
}

interface BatchHooks {
  onResult(item: BatchItem, result: ToolResult): void;
  /** Broken variant only: records a write before it runs (its events, the last one returned). */
  beforeWrite?: (item: BatchItem, fiber: Fiber) => Generator<RunEvent, RunEvent, void>;
  /** Makes the durable record of a finished call: its events, the last one returned. Null when nothing is recorded. */
  record: ((item: BatchItem, result: ToolResult, committed: boolean, fiber: Fiber) => Generator<RunEvent, RunEvent, void>) | null;
}

/**
 * One life. Not itself a generator, so that its events come straight from the life's own
 * generator (one layer fewer per event); nothing runs before the first event is asked for.
 */
export function agentLife(ctx: LifeContext): Generator<RunEvent, LifeResult | null, void> {
  const clock = new LifeClock();
  return ctx.strategy.recovery === 'workflow' ? workflowLife(ctx, clock) : conversationLife(ctx, clock);
}

/** The task already ended: its answer was delivered. */
function taskEnded(ctx: LifeContext): boolean {
  return ctx.stores.outbox.delivered(ctx.scenario.id).length > 0;
}

/** restart and journal: the conversation is the agent's state; the journal saves it after every step. */
function* conversationLife(ctx: LifeContext, clock: LifeClock): Generator<RunEvent, LifeResult | null, void> {
  if (taskEnded(ctx)) return null;
  const { scenario, stores, strategy } = ctx;
  const saving = strategy.recovery === 'journal';
  const saved = saving ? stores.journal.load() : null;
  const conversation: Conversation = saved === null
    ? [{ role: 'user', content: scenario.customerMessage }]
    : parseJournal(saved, stores.journal.location, scenario.id);
  const journalText = new JournalSerializer(scenario.id);
  const calls = new ConversationCalls(conversation);
  if (saved !== null) journalText.resume(conversation, saved);
  // Whether the journal holds the conversation as it is now: each change of the conversation is a
  // new version; a commit makes durable the text of the last write, whatever version that was
  // (parallel calls interleave their saves on the one temp file).
  let version = 0;
  let writtenVersion = -1;
  let committedVersion = saved === null ? -1 : 0;
  // Functions made on every life are methods rather than named closures: the name of a nested
  // function or of an arrow function in a property is set at each creation (Object.defineProperty
  // when compiled with kept names), which costs a few percent of a run.
  const journalSave = {
    // A save is two moments (temp written, then renamed), each taking half of the gap.
    *save(interval: IntervalKind, callId: string | undefined, fiber?: Fiber): Generator<RunEvent, RunEvent, void> {
      stores.journal.write(journalText.text(conversation));
      writtenVersion = version;
      const halfGapMs = scenario.timings.gapMs / 2;
      yield clock.event(callId === undefined ? { index: 0, kind: 'journal-write', atMs: 0, interval } : { callId, index: 0, kind: 'journal-write', atMs: 0, interval }, halfGapMs, fiber);
      stores.journal.commit();
      committedVersion = writtenVersion;
      return clock.event(callId === undefined ? { index: 0, kind: 'journal-save', atMs: 0, interval } : { callId, index: 0, kind: 'journal-save', atMs: 0, interval }, halfGapMs, fiber);
    },
  };
  const keyOf = keyMaker(ctx);
  const hooks: BatchHooks = {
    onResult(item, result) {
      const content = JSON.stringify(result);
      const early = calls.firstResultAt(item.call.id);
      if (early === -1) calls.push({ role: 'tool', toolCallId: item.call.id, content });
      else conversation[early] = { role: 'tool', toolCallId: item.call.id, content };
      version++;
    },
    record: saving ? (item, _result, committed, fiber) => journalSave.save(committed ? 'gap' : 'other', item.call.id, fiber) : null,
    ...(saving && strategy.journalEntry === 'before-write'
      ? {
          // The broken order: the entry says the write is done before the shop has done it.
          beforeWrite(item: BatchItem, fiber: Fiber) {
            calls.push({ role: 'tool', toolCallId: item.call.id, content: JSON.stringify({ ok: true }) });
            version++;
            return journalSave.save('write-before-commit', item.call.id, fiber);
          },
        }
      : {}),
  };
  // The broken checkpoint: the half-streamed answer is saved as if it were the reply, so a resume
  // finds a final answer in the journal and delivers it.
  const answerCheckpoint: AnswerCheckpoint | undefined = saving && strategy.answerCheckpoint === 'every-chunk'
    ? function* (streamedSoFar) {
        // A reply with no calls, pushed and popped at the end: no call or result for `calls` to follow.
        conversation.push({ role: 'assistant', content: streamedSoFar, toolCalls: [] });
        version++;
        const saved = yield* journalSave.save('other', undefined);
        conversation.pop();
        version++;
        return saved;
      }
    : undefined;
  // Fresh random keys come from a generator in memory, which a life started afresh seeds anew.
  const joins = saving && strategy.keys !== 'random' && ctx.atJoinPoint !== undefined;
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    // A life started from the stores now would parse this very conversation from the journal
    // (nothing else of it is in memory but caches) and begin here, at the top of the loop.
    if (joins && committedVersion === version && clock.events > 0 && ctx.atJoinPoint!()) return null;
    const pending = strategy.resume === 'every-message' ? calls.pending() : pendingCalls(conversation, strategy.resume);
    if (pending.length > 0) {
      if (strategy.approval !== undefined) yield* approvalWait(ctx, clock, pending);
      const items: BatchItem[] = [];
      for (const call of pending) items.push({ call, key: keyOf(call.id) });
      yield* runBatch(ctx, clock, items, hooks);
      continue;
    }
    const last = conversation[conversation.length - 1];
    if (isFinalAnswer(last)) {
      yield deliver(ctx, clock, last.content);
      return { conversation };
    }
    const called = yield* callModel(ctx, clock, conversation, answerCheckpoint);
    calls.push(called.message);
    version++;
    // The broken order: the person is asked about a reply that is in memory alone.
    if (strategy.approval === 'before-save') yield* approvalWait(ctx, clock, called.message.toolCalls);
    if (saving) {
      journalText.known(called.message, replyText(called));
      yield yield* journalSave.save('other', undefined);
    }
  }
  throw new Error(`scenario ${scenario.id}: more than ${MAX_TURNS} turns`);
}

/**
 * workflow: DBOS-like. The workflow function runs from the top on every life; each model call and
 * each tool call is a numbered step; a step whose output is recorded returns it without running,
 * the first unrecorded one runs, and its output is recorded only after it returns.
 */
function* workflowLife(ctx: LifeContext, clock: LifeClock): Generator<RunEvent, LifeResult | null, void> {
  if (taskEnded(ctx)) return null;
  const { scenario, stores, strategy } = ctx;
  const workflowId = scenario.id;
  const conversation: Conversation = [{ role: 'user', content: scenario.customerMessage }];
  const keyOf = keyMaker(ctx);
  let stepNumber = 0;
  // The results of the batch running now as JSON (one text each, for its step record and its
  // message), in a map of its own per batch.
  let results = new Map<string, string>();
  const joins = strategy.keys !== 'random' && ctx.atJoinPoint !== undefined;
  const hooks: BatchHooks = {
    // Methods, not named closures (see conversationLife).
    onResult(item, result) {
      results.set(item.call.id, JSON.stringify(result));
    },
    *record(item, _result, committed, fiber) {
      stores.workflow.record(workflowId, item.step!, results.get(item.call.id)!); // onResult came first
      return clock.event({ step: item.step!, callId: item.call.id, index: 0, kind: 'step-recorded', atMs: 0, interval: committed ? 'gap' : 'other' }, scenario.timings.gapMs, fiber);
    },
  };
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    // Every step so far is recorded: a life started from the stores now would replay them all to
    // this same conversation and step number, and run its first step here.
    if (joins && clock.events > 0 && ctx.atJoinPoint!()) return null;
    const modelStep = stepNumber++;
    const recordedReply = stores.workflow.recorded(workflowId, modelStep);
    let reply: AssistantMessage;
    if (recordedReply !== undefined) {
      reply = parsedText(recordedReply) as AssistantMessage; // shared by every life that replays it: frozen
    } else {
      const called = yield* callModel(ctx, clock, conversation);
      reply = called.message;
      stores.workflow.record(workflowId, modelStep, replyText(called));
      yield clock.event({ step: modelStep, index: 0, kind: 'step-recorded', atMs: 0, interval: 'other' }, scenario.timings.gapMs);
    }
    conversation.push(reply);
    if (reply.toolCalls.length === 0) {
      yield deliver(ctx, clock, reply.content);
      return { conversation };
    }
    results = new Map<string, string>();
    const toRun: BatchItem[] = [];
    for (const call of reply.toolCalls) {
      const step = stepNumber++;
      const recorded = stores.workflow.recorded(workflowId, step);
      if (recorded !== undefined) results.set(call.id, reserialized(recorded));
      else toRun.push({ call, step, key: strategy.keys === 'stable' ? `${workflowId}:${step}` : keyOf(call.id) });
    }
    yield* runBatch(ctx, clock, toRun, hooks);
    // Like gathering parallel steps, results come back in call order whatever order they finished in.
    for (const call of reply.toolCalls) conversation.push({ role: 'tool', toolCallId: call.id, content: results.get(call.id)! });
  }
  throw new Error(`scenario ${scenario.id}: more than ${MAX_TURNS} turns`);
}

/** What the scripted person answers at every wait: approve, as a bundled task's person does on LangGraph. */
const APPROVED = 'true';

/** Where a life asks a person: the name of its waits (`approve#1`), as LangGraph names them by the node that asks. */
const APPROVE_PLACE = 'approve';

/**
 * A person approves the refunds among `calls` before they run: the scripted model of LangGraph's
 * approval shape (src/harness/engines/langgraph/graphs.ts), with its two kill points. The n-th
 * question of the run has three records, kept as steps n of their own workflow ids in the workflow
 * store (which a journal strategy uses for nothing else), each a moment LangGraph's run has too:
 *   wait    the run stopped to ask, about these calls (LangGraph: the checkpoint with the interrupt),
 *           then the event `interrupt[approve#n]`
 *   turn    the person's answer, handed over (the outside world's record: user-module/turns.ts),
 *           then the event `resume[approve#n]`
 *   answer  the run took the answer (LangGraph: the checkpoint after `approve` returned)
 * A recovery that finds the wait recorded says no interrupt of its own, and is handed the turn
 * recorded, again, unless the run took it; one that finds the answer taken does not wait.
 */
function* approvalWait(ctx: LifeContext, clock: LifeClock, calls: readonly ToolCall[]): Generator<RunEvent, void, void> {
  const refunds = calls.filter((c) => c.name === 'refund').map((c) => c.id);
  if (refunds.length === 0) return;
  const { workflow, shop } = ctx.stores;
  const ids = { wait: `${ctx.scenario.id}/approve-wait`, turn: `${ctx.scenario.id}/approve-turn`, answer: `${ctx.scenario.id}/approve-answer` };
  const asked = JSON.stringify(refunds);
  let n = 1;
  for (let recorded = workflow.recorded(ids.wait, n); recorded !== undefined && recorded !== asked; recorded = workflow.recorded(ids.wait, n)) n++;
  if (workflow.recorded(ids.answer, n) !== undefined) return;
  const wait = `${APPROVE_PLACE}#${n}`;
  if (workflow.recorded(ids.wait, n) === undefined) {
    workflow.record(ids.wait, n, asked);
    yield clock.event({ wait, effectsDone: shop.writeLog().length, index: 0, kind: 'interrupt', atMs: 0, interval: 'other' }, 0);
  }
  if (workflow.recorded(ids.turn, n) === undefined) workflow.record(ids.turn, n, APPROVED);
  yield clock.event({ wait, index: 0, kind: 'resume', atMs: 0, interval: 'other' }, 0);
  workflow.record(ids.answer, n, workflow.recorded(ids.turn, n)!);
}

/**
 * The calls of a growing conversation, followed as messages are pushed (through `push`): which have
 * no result yet, in pendingCalls' order (`every-message`), and where each call's first result is;
 * so a turn does not read the whole conversation again. A message replaced in place keeps its call
 * id, and one popped from the end must carry no call and no result.
 */
class ConversationCalls {
  private readonly firstResult = new Map<string, number>();
  private open: ToolCall[] = [];

  constructor(private readonly conversation: Conversation) {
    for (const [i, m] of conversation.entries()) this.saw(m, i);
  }

  push(message: Message): void {
    this.conversation.push(message);
    this.saw(message, this.conversation.length - 1);
  }

  /** Where the first result of the call is, or -1. */
  firstResultAt(callId: string): number {
    return this.firstResult.get(callId) ?? -1;
  }

  pending(): ToolCall[] {
    return [...this.open];
  }

  private saw(m: Message, index: number): void {
    if (m.role === 'tool') {
      if (this.firstResult.has(m.toolCallId)) return;
      this.firstResult.set(m.toolCallId, index);
      if (this.open.some((c) => c.id === m.toolCallId)) this.open = this.open.filter((c) => c.id !== m.toolCallId);
    } else if (m.role === 'assistant') {
      for (const c of m.toolCalls) if (!this.firstResult.has(c.id)) this.open.push(c);
    }
  }
}

/** Tool calls of the conversation that have no result yet. */
export function pendingCalls(conversation: Conversation, resume: Strategy['resume']): ToolCall[] {
  const answered = new Set<string>();
  for (const m of conversation) if (m.role === 'tool') answered.add(m.toolCallId);
  const pending: ToolCall[] = [];
  if (resume === 'last-message') {
    // The chapter's bug: only the last message is searched, so a resume after the first of two
    // parallel results (the last message is that result) sees nothing left to do.
    const last = conversation[conversation.length - 1];
    if (last?.role === 'assistant') for (const c of last.toolCalls) if (!answered.has(c.id)) pending.push(c);
    return pending;
  }
  for (const m of conversation) if (m.role === 'assistant') for (const c of m.toolCalls) if (!answered.has(c.id)) pending.push(c);
  return pending;
}

/** The key a write carries under this strategy (workflow's stable key is made by the workflow). */
function keyMaker(ctx: LifeContext): (callId: string) => string | null {
  const runId = ctx.scenario.id;
  switch (ctx.strategy.keys) {
    case 'none':
      return () => null;
    case 'stable':
      return (callId) => `${runId}:${callId}`;
    case 'random': {
      // A fresh id made inside the step: seeded, so runs replay, but new in every life.
      const rng = seedrandom(`${runId}|${ctx.strategy.name}|life ${ctx.lifeIndex}`);
      return () => `${runId}:${Math.floor(rng() * 2 ** 48).toString(16).padStart(12, '0')}`;
    }
  }
}

/** Replies whose chunks were checked to add up to the reply (the check runs once per reply object). */
const addsUp = new WeakSet<ModelReply>();

/** A model call's reply: the agent's own copy of the message, and the model's reply it copies. */
interface CalledModel {
  message: AssistantMessage;
  reply: ModelReply;
}

/**
 * JSON.stringify of the copy, once per model reply: every copy of a reply is the same data (the
 * scripted model never changes a reply it made).
 */
const replyTexts = new WeakMap<ModelReply, string>();
function replyText(called: CalledModel): string {
  let text = replyTexts.get(called.reply);
  if (text === undefined) {
    text = JSON.stringify(called.message);
    replyTexts.set(called.reply, text);
  }
  return text;
}

/** Saves an answer that is still streaming (the broken `every-chunk` checkpoint) and returns the save's last event. */
type AnswerCheckpoint = (streamedSoFar: string) => Generator<RunEvent, RunEvent, void>;

function* callModel(ctx: LifeContext, clock: LifeClock, conversation: Conversation, checkpoint?: AnswerCheckpoint): Generator<RunEvent, CalledModel, void> {
  const { timings } = ctx.scenario;
  const modelCall = clock.nextModelCall();
  yield clock.event({ modelCall, index: 0, kind: 'model-request', atMs: 0, interval: 'other' }, 0);
  const reply = ctx.model.reply(conversation);
  const final = reply.step.kind === 'answer';
  // The streamed text stays in memory until the reply is complete: nothing acts on half of it.
  const { chunks } = reply;
  for (let chunk = 0; chunk < chunks.length; chunk++) {
    yield clock.event({ modelCall, chunk, chunks: chunks.length, final, index: 0, kind: 'model-chunk', atMs: 0, interval: 'model' }, chunk === 0 ? timings.modelLatencyMs : timings.chunkMs);
    if (checkpoint !== undefined && final && chunk < chunks.length - 1) yield yield* checkpoint(chunks.slice(0, chunk + 1).join(''));
  }
  if (!addsUp.has(reply)) {
    // Checked once per reply object: the scripted model hands out the same reply every time.
    const expected = final ? reply.message.content : JSON.stringify(reply.message.toolCalls);
    if (chunks.join('') !== expected) throw new Error(`model call ${modelCall}: the streamed reply does not add up to the reply`);
    addsUp.add(reply);
  }
  yield clock.event({ modelCall, final, index: 0, kind: 'model-reply', atMs: 0, interval: 'other' }, 0);
  return { message: copyReply(reply.message), reply };
}

/** structuredClone of a reply, written out for the shapes a reply holds (the rest goes to structuredClone). */
function copyReply(message: AssistantMessage): AssistantMessage {
  const toolCalls: ToolCall[] = [];
  for (const c of message.toolCalls) toolCalls.push({ id: c.id, name: c.name, args: copyValue(c.args) as Record<string, unknown> });
  const copy: AssistantMessage = { role: message.role, content: message.content, toolCalls };
  return Object.keys(message).length === 3 && message.toolCalls.every((c) => Object.keys(c).length === 3) ? copy : structuredClone(message);
}

function copyValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype || Object.keys(value).length !== value.length) return structuredClone(value);
    return value.map(copyValue);
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) copy[key] = copyValue((value as Record<string, unknown>)[key]);
  return copy;
}

function deliver(ctx: LifeContext, clock: LifeClock, text: string): RunEvent {
  ctx.stores.outbox.deliver(ctx.scenario.id, text);
  return clock.event({ index: 0, kind: 'answer-delivered', atMs: 0, interval: 'other' }, 0);
}

/**
 * Runs tool calls concurrently: each call is a fiber of events, and the interleaving decides which
 * fiber takes the next step. A fiber returns (rather than yields) its last event, so the merge
 * knows it finished without running anything of it early.
 */
function* runBatch(ctx: LifeContext, clock: LifeClock, items: BatchItem[], hooks: BatchHooks): Generator<RunEvent, void, void> {
  // One call has no one to interleave with (no pick is taken): its events pass straight through,
  // without a layer of generator per event.
  if (items.length === 1) {
    yield yield* toolFiber(ctx, clock, items[0]!, hooks, clock.fiber());
    return;
  }
  const fibers: { started: boolean; events: Generator<RunEvent, RunEvent, void> }[] = [];
  for (const item of items) fibers.push({ started: false, events: toolFiber(ctx, clock, item, hooks, clock.fiber()) });
  for (let guard = 0; fibers.length > 0; guard++) {
    if (guard > 1000) throw new Error('runBatch: runaway interleaving');
    let index = 0;
    if (fibers.length > 1) {
      const notStarted = fibers.findIndex((f) => !f.started);
      index = ctx.interleaving.choose(fibers.length, notStarted === -1 ? undefined : notStarted);
    }
    const fiber = fibers[index]!;
    fiber.started = true;
    const step = fiber.events.next();
    if (step.done) fibers.splice(index, 1);
    yield step.value;
  }
}

function* toolFiber(ctx: LifeContext, clock: LifeClock, item: BatchItem, hooks: BatchHooks, fiber: Fiber): Generator<RunEvent, RunEvent, void> {
  const { call } = item;
  const { timings } = ctx.scenario;
  const write = isWriteTool(call.name);
  yield clock.event(toolEvent(item, 'tool-start', 'other'), 0, fiber);
  if (write && hooks.beforeWrite) yield yield* hooks.beforeWrite(item, fiber);
  const outcome = ctx.stores.shop.call(call.name as ToolName, call.args, item.key);
  let resultEvent: RunEvent;
  if (outcome.committed) {
    yield clock.event(toolEvent(item, 'shop-commit', 'write-before-commit', true), timings.toolWaitMs, fiber);
    resultEvent = clock.event(toolEvent(item, 'tool-result', 'gap', true), 0, fiber);
  } else {
    const refused = outcome.result.ok ? undefined : { refused: outcome.result.refused };
    resultEvent = clock.event(toolEvent(item, 'tool-result', write ? 'write-before-commit' : 'tool', false, refused), timings.toolWaitMs, fiber);
  }
  hooks.onResult(item, outcome.result);
  if (hooks.record === null) return resultEvent;
  yield resultEvent;
  return yield* hooks.record(item, outcome.result, outcome.committed, fiber);
}

/** A tool call's event, its fields in the same order every time (see LifeClock.event). */
function toolEvent(item: BatchItem, kind: EventKind, interval: IntervalKind, write?: boolean, refused?: { refused: string }): RunEvent {
  const event = { callId: item.call.id, tool: item.call.name } as RunEvent;
  if (item.step !== undefined) event.step = item.step;
  if (write !== undefined) event.write = write;
  if (refused !== undefined) event.refused = refused.refused;
  event.index = 0;
  event.kind = kind;
  event.atMs = 0;
  event.interval = interval;
  return event;
}
