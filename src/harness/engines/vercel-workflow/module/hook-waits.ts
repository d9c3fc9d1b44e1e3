// A user's workflow across its waits on hooks: `await createHook()` (or createWebhook()) suspends
// the run once the world has written the hook's hook_created, and nothing of it runs until a
// payload comes. Once nothing of the run is in flight (world-run.ts tells), the life reads the
// run's hooks from the world's events, hands the one it waits on its turn (user-module/turns.ts)
// with resumeHook(token, value) (a webhook gets a POST whose body is the value, through
// resumeWebhook), and the run goes on. Three kill points belong to each wait:
//   hook[refund-approval:O-7#1]            the hook is created and the run waits on it
//   resume[refund-approval:O-7#1]          the turn is handed over, resumeHook not yet called
//   hook-received[refund-approval:O-7#1]   resumeHook wrote the payload (hook_received), the
//                                          workflow not yet invoked with it
// A wait is named by its place, the hook's token (a token the SDK generated, different in every
// run, is named `hook` or `webhook`), and which payload of that hook it is. A life that starts with
// the run waiting (its predecessor was killed while it waited) says no wait of its own: it hands
// the turn to the wait it finds, the same turn when one was handed before the kill.
//
// --redeliver: a turn is acknowledged once the run waits again (at another wait) or ends. A
// recovery whose predecessor handed a turn it never saw acknowledged hands it again, as the front
// end retrying does: resumeHook(token, value) once more (a webhook: the same POST again), the
// first time the run waits in this life, or at its end. (Handed before the world started the run
// again, its own invocation raced the world's recovery of the run: one of four checks of the loop
// fixture's 31 kill points had a recovery end in an error.) A hook that no longer exists (the run ended, or disposed it)
// refuses it: HookNotFoundError. The run waiting at the turn's own wait takes it as that wait's
// payload. Else the hook takes it as its next payload (hook_received), which the run reads if it
// reads the hook again (`for await (const payload of hook)`): seen when the run then waits on that
// hook for a later payload, and recorded as the wait that took it (user-module/second-delivery.ts).
// A run that reads the second payload and then ends without waiting on the hook again is not seen
// to; the verdict still judges what it did.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EmitEvent } from '../../../process/child-main.js';
import { sayHalting } from '../../../in-process/fence.js';
import { RESUME_ACCEPTED } from '../../../check/event-kinds.js';
import type { SecondDelivery } from '../../../user-module/second-delivery.js';
import type { Turns } from '../../../user-module/turns.js';
import { HOOK_RECEIVED, HOOK_WAITING } from '../event-kinds.js';
import type { WorldEventData, WorldWaits } from '../world-run.js';

/** A hook the run waits on, for its next payload. */
export interface HookWait {
  /** The wait's id, the same in every life of the run: the hook's id and which payload. */
  id: string;
  token: string;
  isWebhook: boolean;
  /** Where the run waits, for --resume's `{ "to": PLACE }`: the hook's token. */
  place: string;
  asks: unknown;
}

interface HookEvent {
  eventType?: string;
  correlationId?: string;
  eventData?: { token?: unknown; isWebhook?: unknown };
}

/** A token the SDK made (nanoid's 21 URL-safe characters, new in every run): no name a list of turns could give. */
const GENERATED_TOKEN = /^[A-Za-z0-9_-]{21}$/;

/** A workflow run's id (`wrun_` and a ULID, whose time part is new in every run). */
const RUN_ID = /wrun_[0-9A-HJKMNP-TV-Z]{26}/g;

/**
 * Where a hook waits, the same in every run: a generated token is named by its kind, and a run's
 * id inside a token (a chat that keys its hook by its own run) is `{run}`, so two runs never killed
 * name the wait alike and a list of turns can name it.
 */
export function placeOfHook(token: string, isWebhook: boolean): string {
  if (GENERATED_TOKEN.test(token)) return isWebhook ? 'webhook' : 'hook';
  return token.replace(RUN_ID, '{run}');
}

function worldEvents(worldDir: string): HookEvent[] {
  const dir = join(worldDir, 'events');
  if (!existsSync(dir)) return [];
  // Named by the run and a time-ordered event id: sorted by name, in the order written.
  return readdirSync(dir).filter((n) => n.endsWith('.json')).sort().map((n) => JSON.parse(readFileSync(join(dir, n), 'utf8')) as HookEvent);
}

/** A hook of the run, by its id (the world's correlation id): its token, and how many payloads it has received. */
function hookOf(worldDir: string, hookId: string): { token: string; isWebhook: boolean; received: number } | undefined {
  let hook: { token: string; isWebhook: boolean; received: number } | undefined;
  for (const e of worldEvents(worldDir)) {
    if (e.correlationId !== hookId) continue;
    if (e.eventType === 'hook_created') hook = { token: String(e.eventData?.token ?? ''), isWebhook: e.eventData?.isWebhook === true, received: 0 };
    else if (e.eventType === 'hook_received' && hook !== undefined) hook.received++;
  }
  return hook;
}

/** The hook of a wait's id (`${hookId}#2`) and which payload of it the wait is. */
function splitWaitId(id: string): { hookId: string; payload: number } {
  const at = id.lastIndexOf('#');
  return { hookId: id.slice(0, at), payload: Number(id.slice(at + 1)) };
}

/**
 * The hook the run waits on, from the world's events, once nothing of it is in flight: the first
 * hook not disposed that has had no payload yet, else the first one not disposed (a hook read
 * payload after payload); null when it sleeps (a sleep() not yet over) or has no hook.
 */
export function pendingHookWait(worldDir: string): HookWait | null {
  const hooks = new Map<string, { token: string; isWebhook: boolean; received: number; disposed: boolean }>();
  const sleeping = new Set<string>();
  for (const e of worldEvents(worldDir)) {
    const id = e.correlationId ?? '';
    if (e.eventType === 'hook_created') hooks.set(id, { token: String(e.eventData?.token ?? ''), isWebhook: e.eventData?.isWebhook === true, received: 0, disposed: false });
    else if (e.eventType === 'hook_received' && hooks.has(id)) hooks.get(id)!.received++;
    else if (e.eventType === 'hook_disposed' && hooks.has(id)) hooks.get(id)!.disposed = true;
    else if (e.eventType === 'wait_created') sleeping.add(id);
    else if (e.eventType === 'wait_completed') sleeping.delete(id);
  }
  if (sleeping.size > 0) return null;
  const open = [...hooks.entries()].filter(([, h]) => !h.disposed);
  const [hookId, hook] = open.find(([, h]) => h.received === 0) ?? open[0] ?? [];
  if (hookId === undefined || hook === undefined) return null;
  const place = placeOfHook(hook.token, hook.isWebhook);
  return { id: `${hookId}#${hook.received + 1}`, token: hook.token, isWebhook: hook.isWebhook, place, asks: { [hook.isWebhook ? 'webhook' : 'hook']: hook.token } };
}

export interface HookWaitsInputs {
  worldDir: string;
  turns: Turns;
  emit: EmitEvent;
  /** How many effects the run has done so far (the module's readEffects). */
  effectsDone: () => Promise<number>;
  /** The SDK's resumeHook and resumeWebhook, from the copy the workflow runs on. */
  resumeHook: (token: string, payload: unknown) => Promise<unknown>;
  resumeWebhook: (token: string, request: Request) => Promise<unknown>;
  /** --redeliver: the turn this life hands again, and where it went. */
  second: SecondDelivery;
}

/** Writes the event; in process, a kill halts the life here (fence.ts: sayHalting). */
function say(emit: EmitEvent, event: Parameters<EmitEvent>[0]): Promise<void> {
  return sayHalting(() => emit(event));
}

/** The waits of one life: told of the world's events it writes, and of each moment the run is idle. */
export class HookWaits implements WorldWaits {
  /** Whether this life wrote anything but the invocations that replay the run: a life that did not found the run waiting. */
  private movedOn = false;
  /** The wait being resumed, to name its hook_received. */
  private resuming = '';
  private busy = false;
  private again = false;
  /** --redeliver: the payload this life handed again (its hook, which payload of it, and whose turn), until a wait is seen to take it. */
  private secondPayload: { hookId: string; payload: number; turnId: string; place: string } | undefined;
  /** Handing a turn again: its hook_received is no step of the run's own. */
  private redelivering = false;
  private redeliveryDone = false;

  constructor(private readonly run: HookWaitsInputs) {}

  written(data: WorldEventData): Parameters<EmitEvent>[0] | undefined {
    if (data.eventType !== 'run_started' && !this.redelivering) this.movedOn = true;
    return data.eventType === 'hook_received' ? { kind: HOOK_RECEIVED.kind, wait: this.resuming } : undefined;
  }

  /**
   * --redeliver, once in the life: the turn the life before handed and never saw acknowledged,
   * handed again the first time the run waits (`waiting`, the wait it waits at) or at its end
   * (null). True when the world took the payload: the run is invoked with it, and is idle again
   * once it waits.
   */
  private async redeliver(waiting: HookWait | null): Promise<boolean> {
    if (this.redeliveryDone) return false;
    this.redeliveryDone = true;
    const turn = await this.run.second.take();
    if (turn === undefined) return false;
    const { hookId } = splitWaitId(turn.id);
    const hook = hookOf(this.run.worldDir, hookId);
    if (hook === undefined) return false;
    this.resuming = turn.name;
    this.redelivering = true;
    try {
      if (hook.isWebhook) await this.run.resumeWebhook(hook.token, webhookRequest(hook.token, turn.value));
      else await this.run.resumeHook(hook.token, turn.value);
    } catch (error) {
      // The hook is gone (the run ended, or disposed it): the front end's retry is refused, and nothing takes it.
      if ((error as Error | undefined)?.name !== 'HookNotFoundError') throw error;
      return false;
    } finally {
      this.redelivering = false;
    }
    const place = placeOfHook(hook.token, hook.isWebhook);
    // Waiting at the turn's own wait, the run never had its first payload: this one is that wait's.
    if (waiting?.id === turn.id) this.run.second.takenAt(turn.id, place, turn.id);
    else this.secondPayload = { hookId, payload: hookOf(this.run.worldDir, hookId)?.received ?? 0, turnId: turn.id, place };
    return true;
  }

  /** The run ended: a turn to hand again that was not yet is handed now (a hook the run disposed refuses it), and where it went is said. */
  async ended(): Promise<void> {
    await this.redeliver(null);
    await this.run.second.ended();
  }

  async idle(): Promise<void> {
    // One at a time: an idle told while a turn is being handed (the invocation it set off already
    // suspended again) is taken up once it is handed.
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      do {
        this.again = false;
        await this.handTurn();
      } while (this.again);
    } finally {
      this.busy = false;
    }
  }

  private async handTurn(): Promise<void> {
    const wait = pendingHookWait(this.run.worldDir);
    if (wait === null) return;
    if (await this.redeliver(wait)) return;
    const { turns, emit } = this.run;
    this.sawSecondTaken(wait);
    // The run waits again: the turn before is acknowledged (the front end shows the next question).
    turns.acknowledge(wait.id);
    if (this.movedOn) await say(emit, { kind: HOOK_WAITING.kind, wait: turns.nameOf(wait.id, wait.place), effectsDone: await this.run.effectsDone() });
    const { name, value } = turns.turnFor(wait.id, wait.place, wait.asks);
    this.resuming = name;
    await say(emit, { kind: RESUME_ACCEPTED.kind, wait: name });
    this.movedOn = true;
    if (wait.isWebhook) await this.run.resumeWebhook(wait.token, webhookRequest(wait.token, value));
    else await this.run.resumeHook(wait.token, value);
  }

  /** A run that waits on the hook of the payload handed again, for a later payload, has read that one: recorded as the wait that took it. */
  private sawSecondTaken(wait: HookWait): void {
    const second = this.secondPayload;
    if (second === undefined) return;
    const { hookId, payload } = splitWaitId(wait.id);
    if (hookId !== second.hookId || payload <= second.payload) return;
    this.secondPayload = undefined;
    this.run.second.takenAt(`${hookId}#${second.payload}`, second.place, second.turnId);
  }
}

/** A webhook's turn: a POST whose body is the value as JSON. */
function webhookRequest(token: string, value: unknown): Request {
  return new Request(`http://localhost/.well-known/workflow/v1/webhook/${encodeURIComponent(token)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
}
