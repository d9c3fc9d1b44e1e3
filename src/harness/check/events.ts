// The instrumented moments of a run. A kill point k means the process dies right after event k.
// Every event carries the virtual time it happened at and what the process was doing in the
// interval before it, so that a random kill *time* maps to the event in progress.

export type EventKind =
  | 'model-request' // a request to the model was sent
  | 'model-chunk' // a chunk of the streamed reply arrived
  | 'model-reply' // the reply is complete
  | 'tool-start' // a tool call was started
  | 'shop-commit' // the shop committed the call's write
  | 'tool-result' // the tool's result reached the agent
  | 'journal-write' // the journal's new text was written (to its temp file; in place when broken)
  | 'journal-save' // the journal was saved (the temp file renamed over it)
  | 'step-recorded' // the workflow recorded a step's result
  | 'checkpoint-saved' // a graph engine saved a checkpoint (LangGraph: the saver's put returned)
  | 'writes-saved' // a graph engine saved a task's pending writes (LangGraph: putWrites returned)
  | 'answer-delivered'; // the complete answer reached the customer

/** What the process was doing in the time before an event. */
export type IntervalKind =
  | 'model' // waiting on the model: for its first chunk, or while it streams
  | 'tool' // waiting on a read tool
  | 'write-before-commit' // inside a write tool, before the shop commits
  | 'gap' // after a commit, before the record of it is saved
  | 'other'; // the agent's own work

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
  /** Workflow step number (step-recorded; tool events under a workflow). */
  step?: number;
  /** The call committed a write (shop-commit, and the tool-result after it). */
  write?: boolean;
  /** Why the shop refused the call (tool-result). */
  refused?: string;
  /** The tool calls whose results a save records (writes-saved). */
  callIds?: string[];
}

/** A short label for reports: `refund call_refund: shop-commit`. */
export function describeEvent(e: RunEvent): string {
  switch (e.kind) {
    case 'model-request':
      return `model call ${e.modelCall}: request`;
    case 'model-chunk':
      return `model call ${e.modelCall}: ${e.final ? 'answer' : 'reply'} chunk ${e.chunk! + 1}/${e.chunks}`;
    case 'model-reply':
      return `model call ${e.modelCall}: ${e.final ? 'answer' : 'tool calls'} complete`;
    case 'tool-start':
      return `${e.tool} ${e.callId}: start`;
    case 'shop-commit':
      return `${e.tool} ${e.callId}: shop commit`;
    case 'tool-result':
      return `${e.tool} ${e.callId}: result${e.refused ? ` (refused: ${e.refused})` : ''}`;
    case 'journal-write':
      return 'journal written (not yet renamed)';
    case 'journal-save':
      return 'journal saved';
    case 'step-recorded':
      return `workflow step ${e.step} recorded`;
    case 'checkpoint-saved':
      return `checkpoint saved (step ${e.step})`;
    case 'writes-saved':
      return e.callIds && e.callIds.length > 0 ? `pending writes saved (results of ${e.callIds.join(', ')})` : 'pending writes saved';
    case 'answer-delivered':
      return 'answer delivered';
    default:
      // An event of an agent behind the kill protocol: its kind, and the tool and call it names.
      return [e.kind, e.tool, e.callId].filter((v) => typeof v === 'string').join(' ');
  }
}
