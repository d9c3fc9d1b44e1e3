// The kinds of event engines add to the scenario's own (events.ts): the moments
// an engine saves, records or starts something, which only engines of its kind have. Each engine
// declares its kinds in its own folder (engines/<name>/event-kinds.ts) and lists them on its
// Engine (`eventKinds`); registerEngine (registry.ts) registers them here. An event's label, its
// kill-point identity and the reports' glyph, group and explanation of a kind that is not the
// scenario's are read from here; a kind nobody declared (an agent behind the kill protocol names
// its own) is described by its name and call.
//
// A kind is one declaration, whichever engines emit it: an event does not say which engine it
// came from, so two engines that share a kind share its declaration (the shared kinds, below).
//
// An engine's declaration file registers its kinds when it loads, and the engine's code that emits
// them imports it: a label or an identity never depends on whether the engine registry happened
// to be loaded (the experiment, a child process and a test of the checks do not load it), since
// no event of a kind can exist before the code that emits it has loaded.

import { isScenarioKind, SCENARIO_KINDS, type RedeliveryEffect, type RunEvent } from './events.js';
import { redeliveryEffect } from './redelivery-effect.js';

/** Where the reports' strips put an event: the model streaming, a tool waiting, the shop committing, the agent saving, the answer. */
export type EventKindGroup = 'model' | 'tool' | 'commit' | 'save' | 'answer';

export interface EngineEventKind {
  /** The name events carry, lowercase words joined by '-' (a kill-point identity starts with it). */
  readonly kind: string;
  /** What happened, in one line: how the reports explain the kind. */
  readonly meaning: string;
  /** The event in a report's words, e.g. `checkpoint saved (step 3)`. */
  label(e: RunEvent): string;
  /** Its group in the reports' strips (default 'save': most of what engines add are saves). */
  readonly group?: EventKindGroup;
  /** One character for the event in the reports' strips (default: a dot, and no entry in the legend). */
  readonly glyph?: string;
  /**
   * What the event belongs to in its kill-point identity (`step 3` in `checkpoint-saved[step 3]`),
   * '' for nothing in particular (default: the event's call, if it has one).
   */
  subject?(e: RunEvent): string;
  /**
   * Set on the kinds that mark a run's waits for the outside world, for the checks that read them
   * whatever the engine: `recorded`, the wait is durably recorded (the run stops there until a
   * turn comes); `resumed`, a turn was accepted by the waiting run (not yet recorded).
   */
  readonly waitRole?: 'recorded' | 'resumed';
}

// Kinds that more than one kind of agent emits, declared once here: a journal's two moments of a
// save (the scripted runner's journal strategies, an agent written with killpoint/agent, the batch
// refund seed system), a workflow's step record (the scripted workflow strategies, DBOS), a run
// stopped at a person's question (LangGraph, and the scripted model of its approval shape) and a
// turn of the outside world handed to a run that waits for it (every engine that takes --resume).

/** The journal's new text was written, not yet renamed over the journal. */
export const JOURNAL_WRITE = {
  kind: 'journal-write',
  meaning: "the journal's new text was written (to its temp file; in place when broken)",
  glyph: 'w',
  label: () => 'journal written (not yet renamed)',
} as const satisfies EngineEventKind;

/** The journal was saved: its temp file renamed over it. */
export const JOURNAL_SAVE = {
  kind: 'journal-save',
  meaning: 'the journal was saved (the temp file renamed over it)',
  glyph: 's',
  label: () => 'journal saved',
} as const satisfies EngineEventKind;

/** A workflow recorded a step's result: DBOS, and the scripted runner's model of a workflow. */
export const STEP_RECORDED = {
  kind: 'step-recorded',
  meaning: "the workflow recorded a step's result",
  glyph: 'r',
  label: (e) => `workflow step ${e.step}${e.stepName === undefined ? '' : ` (${e.stepName})`} recorded`,
  subject: (e) => (e.callId === undefined ? `step ${e.step}` : e.callId),
} as const satisfies EngineEventKind;

/**
 * The kind of an engine's moment at which its run waits for the outside world, the wait durably
 * recorded (waitRole 'recorded'), named in reports as `<kind> ask#1: <waits>` and in kill points by
 * the wait (`interrupt[ask#1]`). Each engine that takes --resume declares one or two of these.
 */
export function waitRecordedKind<Kind extends string>(kind: Kind, meaning: string, waits = 'the run waits', glyph = '?') {
  return {
    kind,
    meaning,
    group: 'save',
    glyph,
    waitRole: 'recorded',
    label: (e: RunEvent) => `${kind} ${e.wait}: ${waits}`,
    subject: (e: RunEvent) => e.wait ?? '',
  } as const satisfies EngineEventKind;
}

/**
 * A run stopped to ask a person, its wait saved: a LangGraph graph at interrupt() (invoke returned
 * with the wait), and the scripted runner's model of LangGraph's approval shape (its wait recorded
 * before the refund it asks about), so that the two share the kill points `interrupt[approve#1]`.
 */
export const INTERRUPT_RECORDED = waitRecordedKind('interrupt', 'the graph stopped at interrupt() and its wait is saved (invoke returned with it)');

/** A turn of the outside world (--resume: a person's answer) was accepted by a waiting run, not yet recorded by it. */
export const RESUME_ACCEPTED = {
  kind: 'resume',
  meaning: 'a turn of --resume (a person\'s answer) was handed to the waiting run, not yet recorded by it',
  group: 'save',
  glyph: 'A',
  waitRole: 'resumed',
  label: (e) => `resume ${e.wait}: turn delivered`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/**
 * The run sleeps (Vercel's sleep("5s"): wait_created; DBOS.sleep: its wake time in the system
 * database): the sleep is durably recorded, and the run goes on once it is over, on killpoint's
 * clock (user-module/life-clock.ts), at once. Named by the sleep's number in the run.
 */
export const SLEEPING = {
  kind: 'sleep',
  meaning: "the run sleeps, its wake time durably recorded; the sleep ends on killpoint's clock",
  glyph: 'z',
  label: (e) => `${e.wait}: the run sleeps (its wake time recorded)`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** The sleep is over on killpoint's clock (Vercel: the runtime wrote wait_completed); the run has not gone on past it yet. */
export const WOKE = {
  kind: 'woke',
  meaning: 'the sleep is over, on killpoint\'s clock; the run has not gone on past it yet',
  label: (e) => `${e.wait}: over`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** What a second delivery did, in a report's words. */
export const REDELIVERY_WORDS: Record<RedeliveryEffect, string> = {
  'own-wait': 'to the wait it was for (its first delivery never recorded)',
  'later-question': 'answering a later question',
  ignored: 'ignored',
  'applied-twice': 'applied twice',
};

/** --redeliver: a turn handed by a life killed before the run stopped again is delivered again to the recovery. */
export const TURN_REDELIVERED = {
  kind: 'redeliver',
  meaning: 'a turn of --resume whose delivery a kill may have cut was delivered again (--redeliver), not yet recorded by the run',
  group: 'save',
  glyph: 'D',
  label: (e) => `redeliver ${e.wait}: ${e.redelivery === undefined ? 'turn delivered again' : redeliveryWords(e)}`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** --redeliver: what a turn delivered again did, where it could be told only once the run stopped again (a run that waited at no wait). */
export const REDELIVERY_SEEN = {
  kind: 'redelivered',
  meaning: 'what a turn delivered again (--redeliver) did, seen once the run stopped again',
  group: 'save',
  label: (e) => `redelivered ${e.wait}: ${redeliveryWords(e)}`,
  subject: (e) => e.wait ?? '',
} as const satisfies EngineEventKind;

/** What a second delivery did, in words, with the later wait it went to: `applied twice (approval#2)`. */
function redeliveryWords(e: RunEvent): string {
  const effect = redeliveryEffect(e);
  if (effect === undefined) return 'seen';
  const later = (effect === 'later-question' || effect === 'applied-twice') && e.answered !== undefined ? ` (${e.answered})` : '';
  return `${REDELIVERY_WORDS[effect]}${later}`;
}

/** Every declared kind by name, in the order they were declared (the order of the glyph legend). */
const KINDS = new Map<string, EngineEventKind>();

/**
 * Registers an engine's kinds. A kind already known must come with the same declaration: a second,
 * different one throws (an event could not say which of the two describes it).
 */
export function registerEventKinds(kinds: readonly EngineEventKind[], owner: string): void {
  const adding = new Map<string, EngineEventKind>();
  for (const k of kinds) {
    if (!/^[a-z][a-z-]*$/.test(k.kind)) throw new Error(`${owner}: event kind "${k.kind}" is not lowercase words joined by '-' (a kill-point identity could not name it)`);
    const known = KINDS.get(k.kind) ?? adding.get(k.kind);
    if (known !== undefined && known !== k) {
      throw new Error(`${owner}: event kind "${k.kind}" is declared already (${known.meaning}); an engine that emits it lists that declaration`);
    }
    adding.set(k.kind, k);
  }
  for (const k of adding.values()) if (!KINDS.has(k.kind)) KINDS.set(k.kind, k);
}

/** The declaration of a kind an engine added, or undefined (a scenario kind, or one nobody declared). */
export function engineEventKind(kind: string): EngineEventKind | undefined {
  return KINDS.get(kind);
}

/** Every kind engines added, in the order they were declared. */
export function engineEventKinds(): EngineEventKind[] {
  return [...KINDS.values()];
}

/** The shared kinds, known as soon as events are. */
export const SHARED_EVENT_KINDS: readonly EngineEventKind[] = [JOURNAL_WRITE, JOURNAL_SAVE, STEP_RECORDED, INTERRUPT_RECORDED, RESUME_ACCEPTED, TURN_REDELIVERED, REDELIVERY_SEEN, SLEEPING, WOKE];
registerEventKinds(SHARED_EVENT_KINDS, 'shared kinds');

/** A short label for reports: `refund call_refund: shop commit`. */
export function describeEvent(e: RunEvent): string {
  if (isScenarioKind(e.kind)) return SCENARIO_KINDS[e.kind].label(e);
  const declared = engineEventKind(e.kind);
  if (declared !== undefined) return declared.label(e);
  // A kind nobody declared (an agent behind the kill protocol names its own): its kind, and the tool and call it names.
  return [e.kind, e.tool, e.callId].filter((v) => typeof v === 'string').join(' ');
}
