// LangGraph's own kinds of event, beyond the scenario's: its checkpointer's two saves, each
// emitted once the row is committed (evented-saver.ts), and a user's graph's nodes beginning and
// returning (module/observer.ts).

import { INTERRUPT_RECORDED, REDELIVERY_SEEN, registerEventKinds, RESUME_ACCEPTED, TURN_REDELIVERED, type EngineEventKind } from '../../check/event-kinds.js';

export const CHECKPOINT_SAVED = {
  kind: 'checkpoint-saved',
  meaning: "LangGraph saved a checkpoint (the saver's put returned)",
  glyph: 'c',
  label: (e) => `checkpoint saved (step ${e.step})`,
  subject: (e) => `step ${e.step}`,
} as const satisfies EngineEventKind;

export const WRITES_SAVED = {
  kind: 'writes-saved',
  meaning: "LangGraph saved a task's pending writes (the saver's putWrites returned)",
  glyph: 'p',
  label: (e) => (e.callIds && e.callIds.length > 0 ? `pending writes saved (results of ${e.callIds.join(', ')})` : 'pending writes saved'),
  // The tool calls whose results the save records: the same save in every order of the calls.
  subject: (e) => e.callIds?.join('+') ?? '',
} as const satisfies EngineEventKind;

/** A node of a user's graph began (module/observer.ts): what it writes outside a tool lies after this. */
export const NODE_START = {
  kind: 'node-start',
  meaning: 'a node of the graph began',
  group: 'tool',
  label: (e) => `node ${e.node}: start`,
  subject: (e) => e.node ?? '',
} as const satisfies EngineEventKind;

/** A node of a user's graph returned its update (not yet saved). */
export const NODE_END = {
  kind: 'node-end',
  meaning: 'a node of the graph returned (its update not yet saved)',
  group: 'tool',
  label: (e) => `node ${e.node}: end`,
  subject: (e) => e.node ?? '',
} as const satisfies EngineEventKind;

/** A graph stopped at interrupt(), named by its node and which time there: a shared kind (the scripted approval strategies have it too). */
export { INTERRUPT_RECORDED };

/** A later user message of --resume was handed to the thread whose run had ended (module/waits.ts), before LangGraph records it. */
export const LATER_MESSAGE = {
  kind: 'message',
  meaning: 'a later user message of --resume was handed to the thread whose run had ended, not yet recorded by it',
  group: 'save',
  glyph: 'U',
  label: (e) => `message ${e.wait}: later user message delivered`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** Every kind LangGraph adds to the scenario's (a turn handed to a wait, or handed again, is a shared kind: check/event-kinds.ts). */
export const LANGGRAPH_EVENT_KINDS: readonly EngineEventKind[] = [CHECKPOINT_SAVED, WRITES_SAVED, NODE_START, NODE_END, INTERRUPT_RECORDED, LATER_MESSAGE, RESUME_ACCEPTED, TURN_REDELIVERED, REDELIVERY_SEEN];

// Known as soon as this file loads: the code that emits these kinds imports it.
registerEventKinds(LANGGRAPH_EVENT_KINDS, 'langgraph');
