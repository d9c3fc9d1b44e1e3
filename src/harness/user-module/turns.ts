// The outside world's turns (--resume: a person's answers), handed to a run at its waits, the
// k-th wait the run reaches getting the k-th value, in every life of every kill schedule alike.
// What was handed to which wait is the outside world's own record, kept in the run's folder beside
// the agent's state (a person remembers what they answered): a recovery that finds the run still
// waiting where a turn was handed (the kill came before the run recorded it) is handed that turn
// again, and a wait never seen gets the next value. The record is written before the turn is
// handed over, by a rename, so a kill leaves it whole.
//
// An entry is the value itself, or `{ "to": PLACE, "value": V }` naming where it must be handed:
// the place the engine names the wait by (a LangGraph node, a DBOS topic, a Vercel hook token, a
// Restate awakeable or promise), so a list that no longer fits the run says so instead of handing
// an approval to the wrong question. `{ "value": V }` alone is V for whatever wait comes next: a
// value that would otherwise be read as one of these shapes (a chat's `{ "message": TEXT }` payload).
//
// --redeliver: a web server behind a person's "Approve" button delivers again when it saw no
// acknowledgement. A turn is acknowledged once the run, handed it, stopped again (at its next wait or
// its end: the engine's call that carried the turn returned, as the server's answer to the button
// would). A recovery whose record's last turn is not acknowledged is delivered it again, once, where
// it stands: to the wait it finds (that turn's own wait, or a later one, which then takes the value
// in place of its own), or, waiting on none, to the run as it goes on. The engine says what that
// second delivery did (the event `redeliver`). Without --redeliver the record holds no more than
// the turns handed. Where the engine's front end delivers into what the run reads in order (DBOS's
// messages on a topic, a hook's payloads), the second delivery is one more: a later wait may take
// it as an answer of its own (secondTakenBy), taking no turn of the list, so the person's next turn
// still goes to the next wait the run stops at; what it did is told once the run ended
// (second-delivery.ts), the effect judged by check/redelivery-effect.ts.
//
// A later user message, `{ "message": TEXT }` (that one key, a string), is a turn of the run once it
// ended (a person writes again in a chat whose answer came): the engine hands it to the run as a new
// input on the same thread (LangGraph alone, module/waits.ts), and the run goes on across its waits
// to its end again. It is recorded before it is handed, with the thread's mark then (the engine's
// name for the thread's last save: LangGraph's checkpoint id). A recovery that finds the run ended
// and the record's last turn a message whose mark is still the thread's was killed before the thread
// recorded it (LangGraph saves the input as a checkpoint before it runs a step, so any record of it
// moves the mark): it is handed that message again. A mark that moved means the thread took it. An
// interrupt's answer of that very shape is given as `{ "value": { "message": TEXT } }`.
// --redeliver delivers answers again, never a message.
//
// Bad input (the first life: it is the run never killed, up to its kill point): a wait with no
// value left, named by what it asks; a value for another place than the wait it falls to; values
// left once the run ended. In a recovery each is what the kill made of the run, left to the verdict.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserModuleSetupError } from './setup-error.js';

/** The record's file in the run's folder (a state file of every tier that takes --resume). */
export const TURNS_FILE = 'killpoint-turns.json';

interface Handed {
  /** The engine's id of the wait (the same in every life of one run). */
  id: string;
  /** Its name in reports: where the run waits and which time there (`ask#1`). */
  name: string;
  /** The value it was handed, by its place in the list, when not its own (a turn delivered again to a later wait). */
  from?: number;
  /** --redeliver: the run, handed this turn, stopped again (the delivery was acknowledged). */
  acknowledged?: true;
  /** --redeliver: this turn was delivered again to a recovery (once). */
  redelivered?: true;
  /** --redeliver: a wait that took a second delivery as one more answer, no turn of the list its own. */
  extra?: true;
  /** A later user message: the thread's mark (its last save) when it was handed, moved once the thread recorded it. */
  mark?: string;
}

/** A later user message handed to a run that ended: its name (`#1`, the first message) and its text. */
export interface LaterMessage {
  name: string;
  text: string;
}

/** A turn delivered again (--redeliver): its wait's name, its value and the value's place in the list. */
export interface Redelivery {
  name: string;
  id: string;
  /** Where its wait was (the name without which time there). */
  place: string;
  value: unknown;
  from: number;
}

export interface TurnsGiven {
  values: unknown[];
  arg: string;
  /** --redeliver: a turn a kill may have cut is delivered again to the recovery. */
  redeliver?: boolean;
}

export class Turns {
  private readonly handed: Handed[];
  private readonly file: string;

  /** `firstLife`: the life that starts the run, whose mistakes are the input's (bad input), not the kill's. */
  constructor(
    stateDir: string,
    private readonly given: TurnsGiven | undefined,
    private readonly firstLife: boolean,
  ) {
    this.file = join(stateDir, TURNS_FILE);
    this.handed = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as Handed[]) : [];
  }

  /** The wait's name: as recorded when a turn was handed to it, else the next time at `place`. */
  nameOf(id: string, place: string): string {
    const known = this.handed.find((h) => h.id === id);
    if (known !== undefined) return known.name;
    return `${place}#${this.handed.filter((h) => h.name.startsWith(`${place}#`)).length + 1}`;
  }

  /** The turn for the wait (`asks`: what it waits for, to name it when no value is left), recorded before it is handed over. */
  turnFor(id: string, place: string, asks: unknown): { name: string; value: unknown } {
    const values = this.given?.values ?? [];
    const index = this.handed.findIndex((h) => h.id === id);
    if (index !== -1) return { name: this.handed[index]!.name, value: valueOf(values[this.handed[index]!.from ?? index]) };
    const name = this.nameOf(id, place);
    const at = this.turnsTaken();
    if (at >= values.length) this.fail(this.noValueLeft(name, asks));
    const entry = values[at];
    if (messageOf(entry) !== undefined) this.fail(`--resume ${this.given!.arg}: value ${at + 1} is a later message, but the run waits at ${name}, for ${describeAsk(asks)} (a message is handed once the run ended; an answer of that shape is given as {"value": V})`);
    const to = targetOf(entry);
    if (to !== undefined && to !== place) this.fail(`--resume ${this.given!.arg}: value ${at + 1} is for ${JSON.stringify(to)}, but the run's wait ${at + 1} is at ${JSON.stringify(place)} (${name}, for ${describeAsk(asks)})`);
    // Its value's place in the list, kept where it is not its own place in the record (after a wait that took a second delivery).
    this.handed.push(at === this.handed.length ? { id, name } : { id, name, from: at });
    this.save();
    return { name, value: valueOf(entry) };
  }

  /** How many turns of the list the run was handed (a wait that took a second delivery took none). */
  private turnsTaken(): number {
    return this.handed.filter((h) => h.extra !== true).length;
  }

  /** The turns of the list never handed, so far: a turn a second delivery took the place of stays here once the run ended. */
  turnsLeft(): number {
    return Math.max(0, (this.given?.values.length ?? 0) - this.turnsTaken());
  }

  /** --redeliver: the run stopped again (at a wait or its end) since the last turn was handed; `waitingAt`, the wait it stopped at (stopped at the last turn's own, it is not acknowledged: the run never took it). */
  acknowledge(waitingAt?: string): void {
    const last = this.handed.at(-1);
    if (this.given?.redeliver !== true || last === undefined || last.acknowledged === true || last.id === waitingAt) return;
    last.acknowledged = true;
    this.save();
  }

  /**
   * --redeliver, in a recovery: the last turn handed, when the run never stopped again after it and
   * it was not delivered again yet; recorded as delivered again before it is handed over.
   */
  takeRedelivery(): Redelivery | undefined {
    const last = this.handed.at(-1);
    if (this.given?.redeliver !== true || this.firstLife || last === undefined || last.acknowledged === true || last.redelivered === true || last.mark !== undefined) return undefined;
    last.redelivered = true;
    this.save();
    const from = last.from ?? this.handed.length - 1;
    return { name: last.name, id: last.id, place: last.name.replace(/#\d+$/, ''), value: valueOf(this.given.values[from]), from };
  }

  /** The ids of the waits whose turn was delivered again (--redeliver), in any life so far. */
  deliveredAgain(): string[] {
    return this.handed.filter((h) => h.redelivered === true && h.extra !== true).map((h) => h.id);
  }

  /**
   * A second delivery of the turn of wait `turnId`, taken by the run at a later wait (`id` at
   * `place`) as one more answer, where the front end delivers into what the run reads in order:
   * recorded, taking no turn of the list, before the run goes on with it; its name.
   */
  secondTakenBy(id: string, place: string, turnId: string): string {
    const known = this.handed.find((h) => h.id === id);
    if (known !== undefined) return known.name;
    const of = this.handed.findIndex((h) => h.id === turnId);
    const name = this.nameOf(id, place);
    this.handed.push({ id, name, from: this.handed[of]?.from ?? of, redelivered: true, extra: true });
    this.save();
    return name;
  }

  /** A turn delivered again to a later wait answers it: that wait's turn is the redelivered value, recorded before it is handed. */
  redeliveredTo(id: string, place: string, turn: Redelivery): string {
    const name = this.nameOf(id, place);
    this.handed.push({ id, name, from: turn.from, redelivered: true });
    this.save();
    return name;
  }

  /**
   * The run ended, its thread's mark `mark`: the later message it takes now, or undefined (the run is
   * over). A message handed that the thread never recorded (its mark unchanged) is handed again;
   * else the next entry, when it is a message, recorded before it is handed. `takesMessages`: the
   * run's state has a messages list (a message for one without is bad input).
   */
  laterMessage(mark: string, takesMessages: boolean): LaterMessage | undefined {
    const values = this.given?.values ?? [];
    const last = this.handed.at(-1);
    if (last?.mark === mark) return { name: last.name, text: messageOf(values[last.from ?? this.handed.length - 1])! };
    const at = this.turnsTaken();
    const text = messageOf(values[at]);
    if (text === undefined) return undefined;
    if (!takesMessages) this.fail(`--resume ${this.given!.arg}: value ${at + 1} is a later message, but the run's state has no messages list to append it to (a later message is for a chat graph, whose state takes messages)`);
    const name = `#${this.handed.filter((h) => h.mark !== undefined).length + 1}`;
    this.handed.push(at === this.handed.length ? { id: `message${name}`, name, mark } : { id: `message${name}`, name, mark, from: at });
    this.save();
    return { name, text };
  }

  private save(): void {
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify(this.handed));
    renameSync(temp, this.file);
  }

  /** Once the run ended: every value must have been handed to a wait. */
  mustAllBeHanded(): void {
    if (!this.firstLife) return;
    const values = this.given?.values ?? [];
    const left = this.turnsLeft();
    if (left <= 0) return;
    const places = values.slice(values.length - left).map(targetOf).filter((to) => to !== undefined);
    const forPlaces = places.length === 0 ? '' : `; left for ${places.map((to) => JSON.stringify(to)).join(', ')}, never waited on`;
    const waited = this.handed.filter((h) => h.mark === undefined).length;
    this.fail(`--resume ${this.given!.arg}: ${left} value${left === 1 ? '' : 's'} left when the run ended (it waited ${waited} time${waited === 1 ? '' : 's'}, ${values.length} value${values.length === 1 ? '' : 's'} given${forPlaces})`);
  }

  private noValueLeft(name: string, asks: unknown): string {
    const what = `the run waits at ${name}, for ${describeAsk(asks)}`;
    if (this.given === undefined) return `${what}: give its answers with --resume values.json, a JSON list with one value per wait, in order`;
    return `${what}, with no value left in --resume ${this.given.arg} (${this.given.values.length} given, one per wait, in order)`;
  }

  private fail(message: string): never {
    if (this.firstLife) throw new UserModuleSetupError(message);
    throw new Error(`the recovery ${message.replace(/^the run /, '')}`);
  }
}

/** The place an entry names (`{ "to", "value" }`, those two fields alone), or undefined for a bare value. */
export function targetOf(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const keys = Object.keys(entry);
  if (keys.length !== 2 || !keys.includes('to') || !keys.includes('value')) return undefined;
  const to = (entry as { to: unknown }).to;
  return typeof to === 'string' ? to : undefined;
}

/** `{ "value": V }`, that one field: V handed as it is, whatever its shape. */
function wrappedAlone(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return false;
  const keys = Object.keys(entry);
  return keys.length === 1 && keys[0] === 'value';
}

/** The text of a later user message (`{ "message": TEXT }`, that one field, a string), or undefined. */
export function messageOf(entry: unknown): string | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
  const keys = Object.keys(entry);
  const text = (entry as { message?: unknown }).message;
  return keys.length === 1 && typeof text === 'string' ? text : undefined;
}

export function valueOf(entry: unknown): unknown {
  return targetOf(entry) === undefined && !wrappedAlone(entry) ? entry : (entry as { value: unknown }).value;
}

function describeAsk(asks: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(asks) ?? String(asks);
  } catch {
    text = String(asks);
  }
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}
