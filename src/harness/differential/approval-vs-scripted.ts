// Does the scripted model of a person in the loop tell the truth about LangGraph? The bundled
// LangGraph approval shape (approval/sync, approval/sync+keys: createReactAgent v2's graph whose
// node `approve` asks a person with interrupt() before a reply's refunds run) and the scripted
// journal that waits for the same person before the same refunds (journal+approval,
// journal+keys+approval) are the same agent: at every kill point both have, the same verdict.
// A kill point is matched by its identity (interrupt[approve#1], resume[approve#1],
// tool-result[call_refund], model-reply[model 4], ...); LangGraph's checkpoint saves and the
// journal's two moments have no counterpart and are left out. The verdicts are compared on what
// the customer and the shop see (check/verdict-compare.ts). The LangGraph side is run from scratch
// at the kill points asked for, or, asked for none, explored by equivalence at every one.

import { eventIdentities, findKillPoint } from '../check/kill-points.js';
import type { RunOutcome, Schedule } from '../check/outcome.js';
import { judge, type Verdict } from '../check/verdict.js';
import { verdictDifferences } from '../check/verdict-compare.js';
import type { Scenario } from '../../model/scenario.js';
import type { SystemUnderTest } from '../engine.js';
import { langGraphSystem } from '../engines/langgraph/engine.js';
import { scripted } from '../engines/scripted/engine.js';
import { exploreByEquivalence } from '../search/equivalence.js';
import { runSchedule } from '../session.js';
import { inPool } from '../process/pool.js';

/** Each LangGraph approval system and the scripted strategy that models it. */
export const APPROVAL_MODELLED_BY: Readonly<Record<string, string>> = { 'approval/sync': 'journal+approval', 'approval/sync+keys': 'journal+keys+approval' };

export interface ApprovalKillPoint {
  identity: string;
  /** Where the two verdicts differ, one line a field (empty: they agree). */
  differences: string[];
  /** LangGraph's verdict found writes done twice (the sample is not all passes). */
  doneTwice: boolean;
}

export interface ApprovalComparison {
  scenarioId: string;
  langgraph: string;
  scripted: string;
  /** Kill points of LangGraph's run never killed, and those the scripted run has too (compared). */
  langgraphKillPoints: number;
  rows: ApprovalKillPoint[];
  /** In both runs never killed, each refund's call starts after a person answered since the reply that made it. */
  asksBeforeEveryRefund: { langgraph: boolean; scripted: boolean };
}

export interface ApprovalComparisonOptions {
  /** LangGraph's approval system, e.g. approval/sync. */
  langgraph: string;
  /** The scripted strategy compared with it (default: the one that models it). */
  scripted?: string;
  /** Only these kill points, each run from scratch (default: every shared one, explored by equivalence). */
  identities?: readonly string[];
  concurrency?: number;
}

const NONE: Schedule = { kills: [], interleaving: [] };

/** In the life's events, every refund's call starts after a person answered (`resume`) since the reply that made it: none runs unapproved. */
export function asksBeforeEveryRefund(baseline: RunOutcome): boolean {
  let answered = false;
  for (const e of baseline.lives[0]?.events ?? []) {
    if (e.kind === 'model-reply') answered = false;
    if (e.kind === 'resume') answered = true;
    if (e.kind === 'tool-start' && e.tool === 'refund' && !answered) return false;
  }
  return true;
}

/** LangGraph's verdict at each kill point asked for (by index into its run never killed). */
async function langGraphVerdicts(scenario: Scenario, system: SystemUnderTest, baseline: RunOutcome, points: number[] | null, concurrency: number): Promise<Map<number, Verdict>> {
  const verdicts = new Map<number, Verdict>();
  if (points === null) {
    await exploreByEquivalence(scenario, system, [{ picks: [], baseline }], 1, (c) => verdicts.set(c.kills[0]!, c.verdict()), { concurrency });
    return verdicts;
  }
  const runs = await inPool(points, concurrency, async (k) => ({ k, outcome: await runSchedule(system, scenario, { kills: [k], interleaving: [] }) }));
  for (const r of runs) verdicts.set(r.k, judge(scenario, r.outcome, baseline));
  return verdicts;
}

/** The two systems at every kill point both have (or those asked for), in LangGraph's run's order. */
export async function compareApprovalWithScripted(scenario: Scenario, options: ApprovalComparisonOptions): Promise<ApprovalComparison> {
  const lg = langGraphSystem(options.langgraph);
  const scriptedName = options.scripted ?? APPROVAL_MODELLED_BY[options.langgraph];
  if (lg === undefined || scriptedName === undefined) throw new Error(`approval differential: expected one of ${Object.keys(APPROVAL_MODELLED_BY).join(', ')}, got "${options.langgraph}"`);
  const model = scripted(scriptedName);
  const lgBaseline = await runSchedule(lg, scenario, NONE);
  const modelBaseline = runSchedule(model, scenario, NONE);
  const lgIds = eventIdentities(lgBaseline.lives[0]!.events);
  const modelIds = eventIdentities(modelBaseline.lives[0]!.events);
  const asked = options.identities ?? lgIds.filter((id) => modelIds.includes(id));
  const missing = asked.filter((id) => !lgIds.includes(id) || !modelIds.includes(id));
  if (missing.length > 0) throw new Error(`${scenario.id}: not a kill point of both ${options.langgraph} and ${scriptedName}: ${missing.join(', ')}`);
  const points = asked.map((id) => findKillPoint(lgBaseline.lives[0]!.events, id)!);
  const verdicts = await langGraphVerdicts(scenario, lg, lgBaseline, options.identities === undefined ? null : points, options.concurrency ?? 1);
  const rows = asked.map((identity, i): ApprovalKillPoint => {
    const theirs = verdicts.get(points[i]!);
    if (theirs === undefined) return { identity, differences: [`${options.langgraph} was not judged at this kill point`], doneTwice: false };
    const mk = findKillPoint(modelBaseline.lives[0]!.events, identity)!;
    const mine = judge(scenario, runSchedule(model, scenario, { kills: [mk], interleaving: [] }), modelBaseline);
    return { identity, differences: verdictDifferences('langgraph', theirs, mine), doneTwice: theirs.doneTwice.length > 0 };
  });
  return {
    scenarioId: scenario.id,
    langgraph: options.langgraph,
    scripted: scriptedName,
    langgraphKillPoints: lgIds.length,
    rows,
    asksBeforeEveryRefund: { langgraph: asksBeforeEveryRefund(lgBaseline), scripted: asksBeforeEveryRefund(modelBaseline) },
  };
}
