// The instrumented moments of a run. A kill point k means the process dies right after event k.
// Every event carries the virtual time it happened at and what the process was doing in the
// interval before it, so that a random kill *time* maps to the event in progress.

// The scenario's own kinds are the closed list below: every engine's run of a scenario has them. An
// engine adds kinds of its own (a journal saved, a checkpoint, a workflow step recorded), declared
// in its folder and registered in event-kinds.ts beside this file, so a kind is an open string here.

/** The scenario's own kinds, in the order a run meets them. */
export const SCENARIO_EVENT_KINDS = ['model-request', 'model-chunk', 'model-reply', 'tool-start', 'shop-commit', 'tool-result', 'answer-delivered'] as const;

export type ScenarioEventKind = (typeof SCENARIO_EVENT_KINDS)[number];

/** An event's kind: one of the scenario's, or one an engine declared (event-kinds.ts). */
export type EventKind = string;

/** Each scenario kind: what happened, in one line, and the event in a report's words. */
export const SCENARIO_KINDS: Readonly<Record<ScenarioEventKind, { meaning: string; label(e: RunEvent): string }>> = {
  'model-request': { meaning: 'a request to the model was sent', label: (e) => `model call ${e.modelCall}: request` },
  'model-chunk': { meaning: 'a chunk of the streamed reply arrived', label: (e) => `model call ${e.modelCall}: ${e.final ? 'answer' : 'reply'} chunk ${e.chunk! + 1}${e.chunks === undefined ? '' : `/${e.chunks}`}` },
  'model-reply': { meaning: 'the reply is complete', label: (e) => `model call ${e.modelCall}: ${e.final ? 'answer' : 'tool calls'} complete` },
  'tool-start': { meaning: 'a tool call was started', label: (e) => `${e.tool} ${e.callId}: start` },
  'shop-commit': { meaning: "the shop committed the call's write", label: (e) => `${e.tool} ${e.callId}: shop commit` },
  'tool-result': { meaning: "the tool's result reached the agent", label: (e) => `${e.tool} ${e.callId}: result${e.refused ? ` (refused: ${e.refused})` : ''}` },
  'answer-delivered': { meaning: 'the complete answer reached the customer', label: () => 'answer delivered' },
};

const SCENARIO_KIND_SET: ReadonlySet<string> = new Set(SCENARIO_EVENT_KINDS);

export function isScenarioKind(kind: string): kind is ScenarioEventKind {
  return SCENARIO_KIND_SET.has(kind);
}

/** What the process was doing in the time before an event. */
export type IntervalKind =
  | 'model' // waiting on the model: for its first chunk, or while it streams
  | 'tool' // waiting on a read tool
  | 'write-before-commit' // inside a write tool, before the shop commits
  | 'gap' // after a commit, before the record of it is saved
  | 'other'; // the agent's own work

/** What a second delivery of a turn did (--redeliver): went to the wait it was for (its first never recorded), answered a later question, was ignored, or was applied twice. */
export type RedeliveryEffect = 'own-wait' | 'later-question' | 'ignored' | 'applied-twice';

export interface RunEvent {
  /** Position in this life's list of events, from 0. */
  index: number;
  kind: EventKind;
  /** Virtual time of the event, in ms from the start of the life. */
  atMs: number;
  interval: IntervalKind;
  /** Model call number within the life (model-request, model-chunk, model-reply). */
  modelCall?: number;
  chunk?: number;
  chunks?: number;
  /** The reply is the final answer (model-chunk, model-reply). */
  final?: boolean;
  callId?: string;
  tool?: string;
  /** The graph node an event belongs to (a user's LangGraph graph: node-start, node-end). */
  node?: string;
  /** An HTTP request an event belongs to, as `POST host/path` (the network boundary's events: traffic/event-kinds.ts). */
  request?: string;
  /** The name of the workflow step an event belongs to (a user's DBOS workflow). */
  stepName?: string;
  /** Step number, where an engine's event names one (a workflow's step record, a checkpoint; tool events under a workflow). */
  step?: number;
  /** The call committed a write (shop-commit, and the tool-result after it). */
  write?: boolean;
  /** Why the shop refused the call (tool-result). */
  refused?: string;
  /** The tool calls whose results a save records (an engine's save of several calls' results). */
  callIds?: string[];
  /** The wait an event belongs to, named by where the run waits and which time there (`ask#1`): a wait recorded, a turn delivered to it. */
  wait?: string;
  /** What a turn delivered again did (--redeliver: check/redelivery.ts), and the wait it answered, when it answered one. */
  redelivery?: RedeliveryEffect;
  answered?: string;
  /** Once the run that took a turn delivered again ended: the turns of --resume never handed to it (check/redelivery-effect.ts). */
  turnsLeft?: number;
  /** How many effects the run had done when its wait was recorded (read back by the module), to tell what it does again once resumed. */
  effectsDone?: number;
}
