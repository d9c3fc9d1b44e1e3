// Event kinds in the reports' strips: one character each, grouped the way a reader thinks of a
// run (the model streaming, a tool waiting, the shop committing, the agent saving, the answer).
// The scenario's kinds are drawn here; an engine's own kinds bring their character, group and
// meaning (src/harness/check/event-kinds.ts).

import { isScenarioKind, SCENARIO_EVENT_KINDS, SCENARIO_KINDS, type EventKind, type ScenarioEventKind } from '../check/events.js';
import { engineEventKind, type EventKindGroup } from '../check/event-kinds.js';

export type KindGroup = EventKindGroup;

const SCENARIO_DRAWN: Record<ScenarioEventKind, { glyph: string; group: KindGroup }> = {
  'model-request': { glyph: '>', group: 'model' },
  'model-chunk': { glyph: '~', group: 'model' },
  'model-reply': { glyph: '|', group: 'model' },
  'tool-start': { glyph: '(', group: 'tool' },
  'shop-commit': { glyph: '$', group: 'commit' },
  'tool-result': { glyph: ')', group: 'tool' },
  'answer-delivered': { glyph: '!', group: 'answer' },
};

/** An event's group; an engine's kind that names none is a save, as most of what engines add are. */
export function kindGroup(kind: EventKind): KindGroup {
  return isScenarioKind(kind) ? SCENARIO_DRAWN[kind].group : (engineEventKind(kind)?.group ?? 'save');
}

export const KIND_COLOURS: Record<KindGroup, string> = {
  model: '#6b7a8f',
  tool: '#9a8c5b',
  commit: '#c0392b',
  save: '#2c7a7b',
  answer: '#5a3e85',
};

/** An event's character in the strips, or undefined for a kind without one. */
export function glyphOf(kind: EventKind): string | undefined {
  return isScenarioKind(kind) ? SCENARIO_DRAWN[kind].glyph : engineEventKind(kind)?.glyph;
}

/**
 * The kinds of the events a report draws that have a character, for its legend, each with its
 * one-line meaning: the scenario's up to the tool's result, the ones engines add (in the order the
 * report first meets them, so the legend depends on the report alone, never on which engines
 * happen to be loaded), then the answer that ends a run.
 */
export function glyphLegend(kindsDrawn: Iterable<EventKind>): { kind: EventKind; glyph: string; meaning: string }[] {
  const scenario = (kind: ScenarioEventKind) => ({ kind, glyph: SCENARIO_DRAWN[kind].glyph, meaning: SCENARIO_KINDS[kind].meaning });
  const engines = new Map<string, { kind: EventKind; glyph: string; meaning: string }>();
  for (const kind of kindsDrawn) {
    const declared = isScenarioKind(kind) ? undefined : engineEventKind(kind);
    if (declared?.glyph !== undefined && !engines.has(kind)) engines.set(kind, { kind, glyph: declared.glyph, meaning: declared.meaning });
  }
  return [...SCENARIO_EVENT_KINDS.filter((k) => k !== 'answer-delivered').map(scenario), ...engines.values(), scenario('answer-delivered')];
}
