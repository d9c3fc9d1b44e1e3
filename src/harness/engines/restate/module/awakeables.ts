// A user's service across its waits for the outside world: a handler that awaits an awakeable
// (`const { id, promise } = ctx.awakeable()`; `await promise`) waits until someone resolves it
// through the ingress (POST /restate/awakeables/{id}/resolve). The life plays that someone: it hands
// the wait its turn (user-module/turns.ts) and resolves the awakeable with it. Two kill points
// belong to each wait:
//   awakeable[refund#1]  the handler awaits the awakeable: the run waits there
//   resume[refund#1]     the server accepted the resolve; the handler has not seen it yet
// A wait is named by the handler (an awakeable has no name of its own) and which time there.
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

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type * as restate from '@restatedev/restate-sdk';
import { RESUME_ACCEPTED } from '../../../check/event-kinds.js';
import { haltsWhenKilled } from '../../../in-process/fence.js';
import type { EmitEvent } from '../../../process/child-main.js';
import type { Turns } from '../../../user-module/turns.js';
import { AWAKEABLE_WAITING } from '../event-kinds.js';

export interface AwakeableWaitsInputs {
  turns: Turns;
  /** Where the waits are: the handler invoked. */
  place: string;
  emit: EmitEvent;
  /** How many effects the run has done so far (the module's readEffects). */
  effectsDone: () => Promise<number>;
  /** Resolves the awakeable through the server's ingress. */
  resolve: (awakeableId: string, value: unknown) => Promise<void>;
  /** The file of the ids whose resolve the server accepted, kept in the run's folder across its lives. */
  resolvedFile: string;
}

/** The awakeables whose resolve the server accepted, in the run's folder; written by a rename, so a kill leaves it whole. */
class ResolvedAwakeables {
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

export class AwakeableWaits {
  /** Each awakeable's turn, by id, once the handler awaits it: done when its resume is said. */
  private readonly handing = new Map<string, Promise<void>>();
  /** One wait at a time, in the order the handler awaits them. */
  private queue: Promise<void> = Promise.resolve();
  private fail: (error: unknown) => void = () => undefined;
  /** Rejects when a turn cannot be handed (no value left, the server refusing the resolve): the life ends with it. */
  readonly failure: Promise<never>;

  private readonly resolved: ResolvedAwakeables;

  constructor(private readonly inputs: AwakeableWaitsInputs) {
    this.resolved = new ResolvedAwakeables(inputs.resolvedFile);
    this.failure = new Promise<never>((_, reject) => (this.fail = reject));
    this.failure.catch(() => undefined);
  }

  /** The handler's ctx.awakeable: the SDK's, its promise held until the wait's turn is handed. */
  awakeableOf(rctx: restate.Context): restate.Context['awakeable'] {
    return ((serde?: unknown) => {
      const made = (rctx.awakeable as (serde?: unknown) => { id: string; promise: restate.RestatePromise<unknown> })(serde);
      // The SDK gives an attempt it is aborting a placeholder: there is nothing to wait on.
      if (made.id === 'invalid') return made;
      const promise = made.promise as unknown as AwaitedPromise;
      const own = promise.publicPromise;
      if (typeof own !== 'function') throw new Error('restate: this SDK version hands out awakeables killpoint cannot watch (no publicPromise on its promise)');
      // Resolved in an earlier life: the server holds the value, and the handler goes on with it.
      if (this.resolved.has(made.id)) return made;
      promise.publicPromise = () => {
        // A turn that cannot be handed never lets the handler go: the life ends with the failure.
        const handed = this.awaited(made.id).catch(() => new Promise<never>(() => undefined));
        return own.call(promise).then(
          async (value) => (await handed, value),
          async (error: unknown) => {
            await handed;
            throw error;
          },
        );
      };
      return made;
    }) as restate.Context['awakeable'];
  }

  /** The handler awaits the awakeable: its turn is handed once, whatever reads its promise. */
  private awaited(id: string): Promise<void> {
    let handed = this.handing.get(id);
    if (handed === undefined) {
      handed = this.queue.then(() => this.handTurn(id));
      handed.catch((error: unknown) => this.fail(error));
      this.queue = handed.catch(() => undefined);
      this.handing.set(id, handed);
    }
    return handed;
  }

  private async handTurn(id: string): Promise<void> {
    const { turns, place } = this.inputs;
    await this.say({ kind: AWAKEABLE_WAITING.kind, wait: turns.nameOf(id, place), effectsDone: await this.inputs.effectsDone() });
    const { name, value } = turns.turnFor(id, place, `ctx.awakeable() in the handler ${place}`);
    await this.inputs.resolve(id, value);
    this.resolved.add(id);
    await this.say({ kind: RESUME_ACCEPTED.kind, wait: name });
  }

  /** Writes the event; in process, a kill halts the waits here (fence.ts: haltsWhenKilled). */
  private async say(event: Parameters<EmitEvent>[0]): Promise<void> {
    const halted = haltsWhenKilled(() => this.inputs.emit(event));
    if (halted !== undefined) await halted;
  }
}
