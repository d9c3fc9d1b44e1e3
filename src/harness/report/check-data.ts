// The data of the HTML report of `killpoint check`: for each scenario and system, the baseline's
// events in order (default interleaving), each a kill point judged like the explorer judges it,
// with its explanation and the one command that replays it. Plain JSON, so the page embeds it and
// a test compares the page with it.

import { CHECK_LABELS, type CheckName } from '../check/checks.js';
import type { EventKind, RunEvent } from '../check/events.js';
import { describeEvent } from '../check/event-kinds.js';
import { eventIdentities } from '../check/kill-points.js';
import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { SystemUnderTest } from '../engine.js';
import type { Scenario } from '../../model/scenario.js';
import { judged, type Exploration, type JudgedCase } from '../search/explore.js';
import type { Plan } from '../search/plan.js';
import { repeatWithoutKillLines, replayCommand, type CaseSource } from './text.js';
import { differences } from '../check/verdict-lines.js';
import { verdictClass, type VerdictClass } from './verdict-class.js';

export interface KillPointCell {
  /** The kill point: the process dies right after event k (-1: before its first). */
  k: number;
  identity: string;
  /** The event the kill lands after (null for -1). */
  event: { kind: EventKind | string; label: string; atMs: number | null } | null;
  verdict: VerdictClass;
  failed: CheckName[];
  /** The failed checks the system promises. */
  broken: CheckName[];
  differences: string[];
  replay: string;
  /** The explorer's minimal counterexample is this single kill in the default order. */
  minimal: boolean;
}

export interface Strip {
  scenario: string;
  title: string;
  engine: string;
  system: string;
  summary: string;
  promised: CheckName[];
  notPromised: CheckName[];
  /** From the whole exploration (every interleaving and, with --kills 2, every second kill). */
  exploration: {
    schedulesExplored: number;
    kills: number;
    interleavings: number;
    exhaustive: boolean;
    failures: Partial<Record<CheckName, number>>;
    brokenPromises: CheckName[];
    /** Effects the run never killed did twice across a wait, each as the text report tells it (its lines). */
    repeatsWithoutKill?: string[][];
    minimal: { kills: number[]; killAt: string[]; interleaving: number[]; broken: CheckName[]; replay: string; reproduced: boolean } | null;
  };
  /** Single kills of the default order, one per event of the baseline, and -1 first. */
  killPoints: KillPointCell[];
  /** How many of killPoints fall in each verdict class. */
  counts: Partial<Record<VerdictClass, number>>;
}

export interface CheckReportData {
  kind: 'check';
  strips: Strip[];
}

/** Runs every single kill of the default order against its baseline: the cases a strip shows. */
export function* stripCasesPlan(scenario: Scenario, system: SystemUnderTest): Plan<JudgedCase[]> {
  const [baseline] = (yield [{ kills: [], interleaving: [] }]) as RunOutcome[];
  const last = baseline!.lives[0]!.events.length - 1;
  const schedules: Schedule[] = [];
  for (let k = -1; k <= last; k++) schedules.push({ kills: [k], interleaving: [] });
  const outcomes = yield schedules;
  return schedules.map((s, i) => judged(scenario, system, s, baseline!, outcomes[i]!));
}

function eventOf(e: RunEvent | undefined): KillPointCell['event'] {
  if (e === undefined) return null;
  return { kind: e.kind, label: describeEvent(e), atMs: typeof e.atMs === 'number' ? e.atMs : null };
}

export function stripOf(exploration: Exploration, system: SystemUnderTest, scenario: Scenario, cases: JudgedCase[], source: CaseSource): Strip {
  const events = cases[0]?.baseline.lives[0]?.events ?? [];
  const identities = eventIdentities(events);
  const m = exploration.minimal;
  // The minimal counterexample sits on the strip when it is one kill in the order the strip shows.
  const defaultPicks = (cases[0]?.baseline.picksTaken ?? []).join(',');
  const minimalK = m !== null && m.schedule.kills.length === 1 && m.schedule.interleaving.join(',') === defaultPicks ? m.schedule.kills[0]! : null;
  const killPoints = cases.map((c): KillPointCell => {
    const k = c.schedule.kills[0]!;
    return {
      k,
      identity: k < 0 ? 'start' : identities[k]!,
      event: eventOf(events[k]),
      verdict: verdictClass(c.failed),
      failed: c.failed,
      broken: c.broken,
      differences: differences(c.verdict),
      replay: replayCommand(source, c),
      minimal: k === minimalK,
    };
  });
  const counts: Partial<Record<VerdictClass, number>> = {};
  for (const cell of killPoints) counts[cell.verdict] = (counts[cell.verdict] ?? 0) + 1;
  const failures: Partial<Record<CheckName, number>> = {};
  for (const [c, n] of Object.entries(exploration.failures) as [CheckName, number][]) if (n > 0) failures[c] = n;
  return {
    scenario: scenario.id,
    title: scenario.title,
    engine: system.engine,
    system: system.name,
    summary: system.summary,
    promised: [...system.promised],
    notPromised: (Object.keys(CHECK_LABELS) as CheckName[]).filter((c) => !system.promised.includes(c)),
    exploration: {
      schedulesExplored: exploration.schedulesExplored,
      kills: exploration.kills,
      interleavings: exploration.interleavings.explored,
      exhaustive: exploration.interleavings.exhaustive,
      failures,
      brokenPromises: exploration.brokenPromises,
      repeatsWithoutKill: exploration.repeatsWithoutKill.map((r) => repeatWithoutKillLines([r]).map((l) => l.trim())),
      minimal: m === null ? null : {
        kills: m.schedule.kills,
        killAt: m.schedule.kills.map((k, life) => (k < 0 ? 'start' : eventIdentities(m.outcome.lives[life]?.events ?? [])[k] ?? `(no event ${k})`)),
        interleaving: m.outcome.picksTaken,
        broken: m.broken,
        replay: replayCommand(source, m),
        reproduced: m.broken.length > 0,
      },
    },
    killPoints,
    counts,
  };
}
