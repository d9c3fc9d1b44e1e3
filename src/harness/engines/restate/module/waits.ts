// A user's service across its waits for the outside world: a handler that awaits an awakeable
// (`const { id, promise } = ctx.awakeable()`; `await promise`) waits until someone resolves it
// through the ingress (POST /restate/awakeables/{id}/resolve), and a workflow's run that awaits a
// durable promise (`await ctx.promise('approval')`) until a shared handler resolves it. The life
// plays that someone: it hands the wait its turn (user-module/turns.ts) and resolves the awakeable
// or the promise with it. Two kill points belong to each wait:
//   awakeable[refund#1]  the handler awaits the awakeable: the run waits there
//   promise[approval#1]  the workflow's run awaits the durable promise (its get is journaled)
//   resume[refund#1]     the server accepted the resolve; the handler has not seen it yet
// An awakeable is named by the handler (it has no name of its own), a promise by its name, each
// with which time there.
//
// Why a recovery comes back to the same wait: Restate journals no entry for making an awakeable. Its
// id is the invocation's id and the awakeable's number in the invocation (the same in every attempt,
// seen here: `sign_1...AAAAEQ`, number 17 in every life), and every step the handler awaited before
// it is journaled. What the server does with a resolve (seen here, restate-server 1.7.12): it keeps
// it for the invocation whether a service of it runs or not, so a resolve accepted and then the
// service killed is the recovery's, which replays and goes on with that value without a new one; a
// second resolve of the same id is answered 202 and dropped. So the life keeps the ids whose resolve
// the server accepted (as a person remembers having clicked "approve"), and a recovery that comes back
// to one of them says nothing and sends nothing: the handler goes on with what the server kept, and
// if the server had lost it the recovery would wait until its limit and fail. A turn handed and not
// yet accepted (no kill point lies between the two) is resolved again with the same value.
//
// The handler is held at the wait until the resume event is said, so that the run's events come in
// one order: never the next step's start before the resume that let it go.
//
// --redeliver: a turn is acknowledged once the handler waits again (at another wait) or its
// invocation ends. A recovery whose predecessor handed a turn it never saw acknowledged resolves it
// again, as the front end retrying its POST does: the awakeable through the ingress once more (the
// server answers 202 and keeps the first value), the promise through the workflow's shared handler
// once more (the promise is completed already: the call fails). Either way no wait can take it, an
// awakeable's id and a promise's name being one wait's alone (user-module/second-delivery.ts).

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type * as restate from '@restatedev/restate-sdk';
import { RESUME_ACCEPTED } from '../../../check/event-kinds.js';
import { sayHalting } from '../../../in-process/fence.js';
import type { EmitEvent } from '../../../process/child-main.js';
import type { Turns } from '../../../user-module/turns.js';
import { AWAKEABLE_WAITING, PROMISE_WAITING } from '../event-kinds.js';

export interface OutsideWaitsInputs {
  turns: Turns;
  /** The handler invoked: where its awakeables are. */
  handler: string;
  emit: EmitEvent;
  /** How many effects the run has done so far (the module's readEffects). */
  effectsDone: () => Promise<number>;
  /** Resolves the awakeable through the server's ingress. */
  resolveAwakeable: (awakeableId: string, value: unknown) => Promise<void>;
  /** Resolves the workflow's durable promise through a shared handler of the workflow. */
  resolvePromise: (name: string, value: unknown) => Promise<void>;
  /** The file of the waits whose resolve the server accepted, kept in the run's folder across its lives. */
  resolvedFile: string;
}

/** The waits (awakeables, promises) whose resolve the server accepted, in the run's folder; written by a rename, so a kill leaves it whole. */
class ResolvedWaits {
  private readonly ids: string[];

  constructor(private readonly file: string) {
    this.ids = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
  }

  has(id: string): boolean {
    return this.ids.includes(id);
  }

  add(id: string): void {
    this.ids.push(id);
    writeFileSync(`${this.file}.tmp`, JSON.stringify(this.ids));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

/** The promise of an awakeable as the SDK makes it: the handler's await, its combinators and its map all read this. */
interface AwaitedPromise {
  publicPromise?: () => Promise<unknown>;
}

/** A wait of the handler's: its id (the same in every life), where it is, its kind of event and how it is resolved. */
interface Wait {
  id: string;
  place: string;
  kind: string;
  /** What it waits for, to name it when no value is left. */
  asks: string;
  resolve: (value: unknown) => Promise<void>;
}

export class OutsideWaits {
  /** Each wait's turn, by id, once the handler awaits it: done when its resume is said. */
  private readonly handing = new Map<string, Promise<void>>();
  /** One wait at a time, in the order the handler awaits them. */
  private queue: Promise<void> = Promise.resolve();
  private fail: (error: unknown) => void = () => undefined;
  /** Rejects when a turn cannot be handed (no value left, the server refusing the resolve): the life ends with it. */
  readonly failure: Promise<never>;
  private readonly resolved: ResolvedWaits;

  constructor(private readonly inputs: OutsideWaitsInputs) {
    this.resolved = new ResolvedWaits(inputs.resolvedFile);
    this.failure = new Promise<never>((_, reject) => (this.fail = reject));
    this.failure.catch(() => undefined);
  }

  /** The handler's ctx.awakeable: the SDK's, its promise held until the wait's turn is handed. */
  awakeableOf(rctx: restate.Context): restate.Context['awakeable'] {
    const { handler } = this.inputs;
    return ((serde?: unknown) => {
      const made = (rctx.awakeable as (serde?: unknown) => { id: string; promise: restate.RestatePromise<unknown> })(serde);
      // The SDK gives an attempt it is aborting a placeholder: there is nothing to wait on.
      if (made.id === 'invalid') return made;
      this.hold(made.promise, { id: made.id, place: handler, kind: AWAKEABLE_WAITING.kind, asks: `ctx.awakeable() in the handler ${handler}`, resolve: (value) => this.inputs.resolveAwakeable(made.id, value) });
      return made;
    }) as restate.Context['awakeable'];
  }

  /** A workflow's ctx.promise: the SDK's durable promise, each get (and await) held until the wait's turn is handed. */
  promiseOf(rctx: restate.WorkflowContext): restate.WorkflowContext['promise'] {
    return ((name: string, serde?: unknown) => {
      const durable = (rctx.promise as (name: string, serde?: unknown) => { get: () => restate.RestatePromise<unknown> })(name, serde);
      const get = durable.get;
      // Its then, catch and finally call get.
      durable.get = () => {
        const got = get.call(durable);
        this.hold(got, { id: `promise:${name}`, place: name, kind: PROMISE_WAITING.kind, asks: `ctx.promise(${JSON.stringify(name)})`, resolve: (value) => this.inputs.resolvePromise(name, value) });
        return got;
      };
      return durable;
    }) as restate.WorkflowContext['promise'];
  }

  /** Whatever reads the promise (an await, a combinator, map) waits for the wait's turn to be handed. */
  private hold(restatePromise: unknown, wait: Wait): void {
    const promise = restatePromise as AwaitedPromise;
    const own = promise.publicPromise;
    if (typeof own !== 'function') throw new Error('restate: this SDK version hands out promises killpoint cannot watch (no publicPromise)');
    // Resolved in an earlier life: the server holds the value, and the handler goes on with it.
    if (this.resolved.has(wait.id)) return;
    promise.publicPromise = () => {
      // A turn that cannot be handed never lets the handler go: the life ends with the failure.
      const handed = this.awaited(wait).catch(() => new Promise<never>(() => undefined));
      return own.call(promise).then(
        async (value) => (await handed, value),
        async (error: unknown) => {
          await handed;
          throw error;
        },
      );
    };
  }

  /** The handler awaits: the wait's turn is handed once, however often it is awaited. */
  private awaited(wait: Wait): Promise<void> {
    let handed = this.handing.get(wait.id);
    if (handed === undefined) {
      handed = this.queue.then(() => this.handTurn(wait));
      handed.catch((error: unknown) => this.fail(error));
      this.queue = handed.catch(() => undefined);
      this.handing.set(wait.id, handed);
    }
    return handed;
  }

  /** --redeliver: the turn of wait `id` (an awakeable's id, or `promise:NAME`) resolved again; a refusal is the server's answer, not the life's failure. */
  async resolveAgain(id: string, value: unknown): Promise<void> {
    const resolve = id.startsWith('promise:') ? () => this.inputs.resolvePromise(id.slice('promise:'.length), value) : () => this.inputs.resolveAwakeable(id, value);
    await resolve().catch(() => undefined);
  }

  private async handTurn(wait: Wait): Promise<void> {
    const { turns } = this.inputs;
    // The handler waits again: the turn before is acknowledged (the front end shows the next question).
    turns.acknowledge(wait.id);
    await this.say({ kind: wait.kind, wait: turns.nameOf(wait.id, wait.place), effectsDone: await this.inputs.effectsDone() });
    const { name, value } = turns.turnFor(wait.id, wait.place, wait.asks);
    await wait.resolve(value);
    this.resolved.add(wait.id);
    await this.say({ kind: RESUME_ACCEPTED.kind, wait: name });
  }

  /** Writes the event; in process, a kill halts the waits here (fence.ts: sayHalting). */
  private say(event: Parameters<EmitEvent>[0]): Promise<void> {
    return sayHalting(() => this.inputs.emit(event));
  }
}
