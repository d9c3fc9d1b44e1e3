// A user's workflow across its waits for the outside world: DBOS.recv(topic) blocks until a
// message on the topic is sent to the workflow. Every recv goes through one function of DBOS's
// system database (recv), wrapped here: a recv DBOS has no record of is a wait, handed to the
// life, which hands it its turn (user-module/turns.ts) the way the outside world would, with
// DBOS.send from outside the workflow, before DBOS's own recv looks for it. Two kill points belong
// to each wait:
//   recv[approval#1]     the workflow waits in recv (every step before it recorded; DBOS records
//                        nothing of the wait itself: a recovery runs up to it and waits again)
//   resume[approval#1]   the turn is sent (its message committed), before recv has taken it
// A recv DBOS has recorded returns its recorded message (a recovery past it): no wait.
//
// The message is there when DBOS's recv first looks, as a person's answer may be: recv takes a
// message sent before it was called as one sent while it waits. Sent any later, a recovery run
// from a copy of a state made more than recv's time-out ago (60 s unless the workflow says) would
// find its deadline passed (DBOS records it by the clock, once) and recv would return null: an
// answer the run never killed did not get. So each recv's deadline is recorded, as DBOS does,
// when it first looks, and no kill point lies between that and its taking the message.
//
// The message is sent with an idempotency key of the wait's own (its step number), so a
// recovery that finds the workflow waiting in the same recv after the message was sent sends
// nothing new: DBOS keeps the first message (ON CONFLICT DO NOTHING), which recv then takes.
// Without it a second message would wait, unread, for the next recv on the topic.
//
// --redeliver: a turn is acknowledged once the workflow waits again or ends (the web server
// answers the "Approve" POST with the next question, or the outcome). A recovery whose
// predecessor sent a turn it never saw acknowledged sends it again, as the server retrying that
// POST does: DBOS.send(workflowID, message, topic) once more, a new message. A server has no key
// that is the first POST's (killpoint's first is the wait's step, which no server knows), and
// one that keys its sends by the request is answered by DBOS with the first message kept: then
// nothing can differ. The second message carries a key of its own (killpoint-again-recv-N) only
// so that it is found again: DBOS's recv takes the oldest unread message of its topic, so a recv
// that finds the second delivery first takes it, and is no wait (the run does not stop there);
// it is recorded as the wait that took it (user-module/second-delivery.ts), and the person's next
// turn goes to the next recv that waits. The second delivery is sent before any recv of the life
// looks (RecvWaits.ready), so which recv takes it is the same in every replay.

import type { EmitEvent } from '../../../process/child-main.js';
import type { SecondDelivery } from '../../../user-module/second-delivery.js';
import type { Turns } from '../../../user-module/turns.js';
import { RESUME_ACCEPTED } from '../../../check/event-kinds.js';
import { haltsWhenKilled } from '../../../in-process/fence.js';
import { RECV_WAITING } from '../event-kinds.js';

type Recv = (this: SystemDatabaseLike, workflowId: string, functionId: number, timeoutFunctionId: number, topic?: string, ...rest: unknown[]) => Promise<unknown>;

/** What of DBOS's system database the waits use: its recv, its record of a step, and (--redeliver) its messages. */
interface SystemDatabaseLike {
  recv: Recv;
  getOperationResultAndThrowIfCancelled(workflowId: string, functionId: number): Promise<unknown>;
  pool: { query(sql: string, values: unknown[]): Promise<{ rows: { message_uuid: string }[] }> };
  schemaName: string;
  nullTopic: string;
}

/** The message DBOS's recv would take now: the topic's oldest unread one (its own query's order), by id. */
async function oldestUnread(db: SystemDatabaseLike, workflowId: string, topic: string | undefined): Promise<string | undefined> {
  const { rows } = await db.pool.query(`SELECT message_uuid FROM "${db.schemaName}".notifications WHERE destination_uuid = $1 AND topic = $2 AND consumed = false ORDER BY created_at_epoch_ms ASC LIMIT 1`, [workflowId, topic ?? db.nullTopic]);
  return rows[0]?.message_uuid;
}

/** The key of the second delivery of wait `waitId`'s turn, and DBOS's id of its message. */
export const againKey = (waitId: string) => `killpoint-again-${waitId}`;
const messageIdOf = (key: string, workflowId: string) => `${key}::${workflowId}`;

export interface WaitPackages {
  SystemDatabase: { prototype: unknown };
  /** The system database DBOS runs now (DBOSExecutor.globalInstance's): the life's is the one its first recv goes to. */
  currentSystemDatabase: () => unknown;
}

/** A wait in recv: its id (the same in every life of the run), the workflow and topic it waits on. */
export interface RecvWait {
  id: string;
  workflowId: string;
  /** The topic as the workflow gave it (undefined: no topic). */
  topic: string | undefined;
  /** Its place among the run's waits (Turns): the topic. */
  place: string;
  /** The idempotency key its message is sent with: the wait's own, in every life. */
  messageKey: string;
  /** Lets DBOS's recv look for the message, once it is sent. */
  delivered(): void;
}

/** The place of a recv without a topic, among the run's waits and in its kill points. */
export const NO_TOPIC = 'no-topic';

/** DBOS's own recv, kept on the prototype: each life's wrapper wraps it, never an earlier life's wrapper. */
const DBOS_OWN = Symbol.for('killpoint.dbos.recv');

/** The waits the workflow reaches, one at a time, in the order it reaches them. */
export class RecvWaits {
  private readonly arrived: RecvWait[] = [];
  private taker: ((wait: RecvWait) => void) | null = null;
  private opened: () => void = () => undefined;
  /** Settled once the life sent its second delivery, if any (--redeliver): no recv of the life looks for a message before. */
  readonly ready = new Promise<void>((resolve) => (this.opened = resolve));
  /** The waits whose turn was delivered again, by their key (--redeliver); and who is told when a recv takes one. */
  private again = new Map<string, string>();
  private secondTaken: (id: string, place: string, turnId: string) => void = () => undefined;

  /** The life is ready for its recvs: `deliveredAgain`, the waits whose turn any life delivered again, and who records a recv that takes one. */
  open(deliveredAgain: string[], secondTaken: (id: string, place: string, turnId: string) => void): void {
    this.again = new Map(deliveredAgain.map((waitId) => [againKey(waitId), waitId]));
    this.secondTaken = secondTaken;
    this.opened();
  }

  /** The wait whose second delivery is the message `messageId`, if it is one. */
  secondDeliveryOf(messageId: string | undefined, workflowId: string): string | undefined {
    for (const [key, waitId] of this.again) if (messageIdOf(key, workflowId) === messageId) return waitId;
    return undefined;
  }

  /** A recv takes a second delivery: no wait, recorded before DBOS's recv takes it. */
  takesSecond(id: string, place: string, turnId: string): void {
    this.secondTaken(id, place, turnId);
  }

  arrive(wait: RecvWait): void {
    const taker = this.taker;
    this.taker = null;
    if (taker === null) this.arrived.push(wait);
    else taker(wait);
  }

  next(): Promise<RecvWait> {
    const wait = this.arrived.shift();
    if (wait !== undefined) return Promise.resolve(wait);
    return new Promise((resolve) => (this.taker = resolve));
  }
}

/** Wraps DBOS's recv so that this life's waits arrive in `waits`. */
export function observeRecvs(packages: WaitPackages, waits: RecvWaits): void {
  const proto = packages.SystemDatabase.prototype as SystemDatabaseLike & { [DBOS_OWN]?: Recv };
  const recv = (proto[DBOS_OWN] ??= proto.recv);
  let lifeDatabase: unknown;
  proto.recv = async function (this: SystemDatabaseLike, workflowId, functionId, timeoutFunctionId, topic, ...rest) {
    // As for steps (steps.ts): another life's system database (a killed one's, in this process) is left alone.
    lifeDatabase ??= this === packages.currentSystemDatabase() ? this : undefined;
    if (this === lifeDatabase && (await this.getOperationResultAndThrowIfCancelled(workflowId, functionId)) === undefined) {
      const [id, place] = [`recv-${functionId}`, topic ?? NO_TOPIC];
      await waits.ready;
      const second = waits.secondDeliveryOf(await oldestUnread(this, workflowId, topic), workflowId);
      if (second !== undefined) waits.takesSecond(id, place, second);
      // Until the turn is sent: the life's to deliver, outside the workflow.
      else await new Promise<void>((delivered) => waits.arrive({ id, workflowId, topic, place, messageKey: `killpoint-turn-${functionId}`, delivered }));
    }
    return recv.call(this, workflowId, functionId, timeoutFunctionId, topic, ...rest);
  };
}

export interface TurnsDelivery {
  waits: RecvWaits;
  turns: Turns;
  /** --redeliver: the turn this life delivers again, and where it went. */
  second: SecondDelivery;
  workflowId: string;
  emit: EmitEvent;
  /** How many effects the run has done so far (the module's readEffects). */
  effectsDone: () => Promise<number>;
  /** DBOS.send from outside the workflow. */
  send: (destinationId: string, message: unknown, topic: string | undefined, idempotencyKey: string) => Promise<void>;
}

/** Writes the event; in process, a kill halts the delivery here (fence.ts: haltsWhenKilled). */
async function say(run: TurnsDelivery, event: Parameters<EmitEvent>[0]): Promise<void> {
  const halted = haltsWhenKilled(() => run.emit(event));
  if (halted !== undefined) await halted;
}

/**
 * Hands each wait of the workflow its turn, as long as the life runs: it never ends, and fails
 * with the turns' mistakes (bad input in the first life). Called outside the workflow, so that
 * DBOS.send is the outside world's, not a step of the workflow.
 */
export async function deliverTurns(run: TurnsDelivery): Promise<never> {
  const again = await run.second.take();
  if (again !== undefined) await run.send(run.workflowId, again.value, again.place === NO_TOPIC ? undefined : again.place, againKey(again.id));
  run.waits.open(run.turns.deliveredAgain(), (id, place, turnId) => run.second.takenAt(id, place, turnId));
  for (;;) {
    const wait = await run.waits.next();
    // The workflow waits again: the turn before is acknowledged (the server shows the next question).
    run.turns.acknowledge(wait.id);
    await say(run, { kind: RECV_WAITING.kind, wait: run.turns.nameOf(wait.id, wait.place), effectsDone: await run.effectsDone() });
    const { name, value } = run.turns.turnFor(wait.id, wait.place, { 'DBOS.recv': wait.topic ?? null });
    await run.send(wait.workflowId, value, wait.topic, wait.messageKey);
    await say(run, { kind: RESUME_ACCEPTED.kind, wait: name });
    wait.delivered();
  }
}
