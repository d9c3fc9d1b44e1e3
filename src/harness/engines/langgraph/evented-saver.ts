// LangGraph's SQLite checkpointer, with events: checkpoint-saved once `put` has stored a
// checkpoint, writes-saved once `putWrites` has stored a task's pending writes. better-sqlite3
// commits inside the call, so the row is on disk when the event is written: a kill right after it
// leaves the row, a kill right before it cannot (only JavaScript runs between the two).

import type { RunnableConfig } from '@langchain/core/runnables';
import type { Checkpoint, CheckpointMetadata, PendingWrite } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import Database from 'better-sqlite3';
import { CHECKPOINT_SAVED, WRITES_SAVED } from './event-kinds.js';
import { haltsWhenKilled } from '../../in-process/fence.js';

export type SaverEvent = { kind: typeof CHECKPOINT_SAVED.kind; step: number } | { kind: typeof WRITES_SAVED.kind; callIds?: string[] };

/** LangGraph's channel of the answers its interrupts took, and the task id of a Command's own writes (no task's). */
const RESUME_CHANNEL = '__resume__';
const COMMAND_TASK_ID = '00000000-0000-0000-0000-000000000000';

export class EventedSqliteSaver extends SqliteSaver {
  /** How many times a task saved the answer its interrupt() took (a wait answered), in this life. */
  answersTaken = 0;

  constructor(
    db: Database.Database,
    private readonly onEvent: (event: SaverEvent) => void,
  ) {
    super(db);
  }

  static openFile(path: string, onEvent: (event: SaverEvent) => void): EventedSqliteSaver {
    return new EventedSqliteSaver(new Database(path), onEvent);
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, ...rest: unknown[]): Promise<RunnableConfig> {
    const saved = await (super.put as (...a: unknown[]) => Promise<RunnableConfig>).call(this, config, checkpoint, metadata, ...rest);
    await this.say({ kind: CHECKPOINT_SAVED.kind, step: metadata.step });
    return saved;
  }

  // In this version putWrites takes a fourth argument: pass everything through.
  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, ...rest: unknown[]): Promise<void> {
    await (super.putWrites as (...a: unknown[]) => Promise<void>).call(this, config, writes, taskId, ...rest);
    if (taskId !== COMMAND_TASK_ID && writes.some(([channel]) => channel === RESUME_CHANNEL)) this.answersTaken += 1;
    const callIds = toolCallIdsOf(writes);
    await this.say(callIds.length > 0 ? { kind: WRITES_SAVED.kind, callIds } : { kind: WRITES_SAVED.kind });
  }

  /** Writes the event; in process, a kill halts the save here (fence.ts: haltsWhenKilled). */
  private say(event: SaverEvent): Promise<never> | undefined {
    return haltsWhenKilled(() => this.onEvent(event));
  }

  close(): void {
    this.db.close();
  }
}

/** The tool calls whose results a task's writes hold (which calls this save records). */
function toolCallIdsOf(writes: PendingWrite[]): string[] {
  const ids: string[] = [];
  for (const [, value] of writes) {
    const list = Array.isArray(value) ? value : ((value as { messages?: unknown[] } | null)?.messages ?? [value]);
    for (const m of Array.isArray(list) ? list : [list]) {
      const id = (m as { tool_call_id?: unknown } | null)?.tool_call_id;
      if (typeof id === 'string') ids.push(id);
    }
  }
  return ids;
}
