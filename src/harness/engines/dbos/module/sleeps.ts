// A user's workflow's durable sleeps (DBOS.sleep, sleepms, sleepSeconds), on killpoint's clock.
// Every one goes through one function of DBOS's system database (durableSleepms), replaced here for
// the life's own database: as DBOS does, the sleep's wake time is recorded once in the system
// database (operation_outputs, function DBOS.sleep, its output the wake time in epoch ms) and a
// recovery reads it back, so a sleep killed halfway is not started over; but the time is the life's
// clock (user-module/life-clock.ts), not the machine's, and the wait is no wait: the clock moves to
// the wake time at once. DBOS.sleep(5000) and an hour's sleep take no time; where the sleep wakes
// among the run's events is where the workflow put it, on any machine. The row is the one DBOS's
// own sleep writes (the same columns, the same serialization), so DBOS would read it the same.
//
// Two kill points belong to each sleep, as to a Vercel sleep:
//   sleep[sleep 0]   the wake time is committed; the workflow sleeps
//   woke[sleep 0]    the clock has reached it; the workflow has not gone on past the sleep
// A recovery that finds the wake time recorded sleeps what is left of it (woke again, if any is
// left); each later life's clock starts a day later, so a shorter sleep is over by then.

import type { EmitEvent } from '../../../process/child-main.js';
import { SLEEPING, WOKE } from '../../../check/event-kinds.js';
import { sayHalting } from '../../../in-process/fence.js';
import { currentLifeTime, type LifeTime } from '../../../user-module/life-clock.js';

type DurableSleep = (this: SystemDatabaseLike, workflowId: string, functionId: number, durationMs: number) => Promise<void>;

interface Client {
  query(sql: string): Promise<unknown>;
  release(): void;
}

/** What of DBOS's system database a sleep uses: DBOS's own ways to read and record an operation. */
interface SystemDatabaseLike {
  durableSleepms: DurableSleep;
  connect(): Promise<Client>;
  getOperationResultAndThrowIfCancelled(workflowId: string, functionId: number): Promise<{ output?: string | null; functionName?: string } | undefined>;
  recordOperationResultInternal(client: Client, workflowId: string, functionId: number, functionName: string, checkConflict: boolean, startMs: number, endMs: number, options: { output: string; serialization: string }): Promise<void>;
  checkIfCanceled(workflowId: string): Promise<void>;
}

export interface SleepPackages {
  SystemDatabase: { prototype: unknown };
  /** The system database DBOS runs now: the life's is the one its first sleep goes to. */
  currentSystemDatabase: () => unknown;
  /** The name DBOS records a sleep under (DBOS_FUNCNAME_SLEEP) and its serialization of the wake time (DBOSPortableJSON). */
  sleepName: string;
  serializer: { name(): string; stringify(value: unknown): string };
}

/** DBOS's own durableSleepms, kept on the prototype: each life's replacement stands in for it, never for an earlier life's. */
const DBOS_OWN = Symbol.for('killpoint.dbos.durableSleepms');

/** Replaces DBOS's durable sleep, for this life's system database, with one on the life's clock. */
export function sleepOnLifeClock(packages: SleepPackages, emit: EmitEvent): void {
  const proto = packages.SystemDatabase.prototype as SystemDatabaseLike & { [DBOS_OWN]?: DurableSleep };
  const own = (proto[DBOS_OWN] ??= proto.durableSleepms);
  // Outside every life (none here) the machine's clock, DBOS's own sleep.
  const clock = currentLifeTime();
  let lifeDatabase: unknown;
  let sleeps = 0;
  proto.durableSleepms = async function (this: SystemDatabaseLike, workflowId, functionId, durationMs) {
    // As for steps (steps.ts): another life's system database (a killed one's, in this process) is left alone.
    lifeDatabase ??= this === packages.currentSystemDatabase() ? this : undefined;
    if (this !== lifeDatabase || clock === null) return own.call(this, workflowId, functionId, durationMs);
    const wait = `sleep ${sleeps++}`;
    const wake = await recordedWakeTime(this, packages, { workflowId, functionId, durationMs, clock });
    // In process, a kill at either halts the workflow there (fence.ts).
    if (wake.recorded) await sayHalting(() => emit({ kind: SLEEPING.kind, wait }));
    if (clock.now() < wake.ms) {
      clock.advanceTo(wake.ms);
      await sayHalting(() => emit({ kind: WOKE.kind, wait }));
    }
    await this.checkIfCanceled(workflowId);
  };
}

interface SleepAsked {
  workflowId: string;
  functionId: number;
  durationMs: number;
  clock: LifeTime;
}

/** The sleep's wake time: read back where an earlier life recorded it, else recorded now (`recorded`), in one transaction as DBOS's own sleep does. */
async function recordedWakeTime(db: SystemDatabaseLike, packages: SleepPackages, asked: SleepAsked): Promise<{ ms: number; recorded: boolean }> {
  const found = await db.getOperationResultAndThrowIfCancelled(asked.workflowId, asked.functionId);
  if (found !== undefined) {
    // DBOS's own sleep throws its DBOSUnexpectedStepError here; the workflow is not deterministic.
    if (found.functionName !== packages.sleepName) throw new Error(`DBOS: workflow ${asked.workflowId}'s operation ${asked.functionId} was recorded as ${found.functionName}, not ${packages.sleepName}: the workflow does not call the same functions in the same order in every run`);
    return { ms: JSON.parse(found.output ?? 'null') as number, recorded: false };
  }
  const startMs = asked.clock.now();
  const ms = startMs + Math.ceil(asked.durationMs);
  const client = await db.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
    try {
      await db.recordOperationResultInternal(client, asked.workflowId, asked.functionId, packages.sleepName, false, startMs, ms, { output: packages.serializer.stringify(ms), serialization: packages.serializer.name() });
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  return { ms, recorded: true };
}
