// The checks a kill-and-resume run is held to: one list, each check with its name, how it reads
// in a report and when it fails. The explorer, the promises of every system under test, the
// properties (properties.ts: named sets of these checks) and the corpus all speak of these names;
// only the reporter (src/harness/report/text.ts) turns a verdict's records into sentences.
//
// Which checks a system promises is the system's own statement (SystemUnderTest.promised); for
// the scripted engine's strategies the reasons are in src/harness/engines/scripted/promises.ts.

import { canonicalJson } from '../../model/canonical-json.js';
import type { Scenario } from '../../model/scenario.js';
import { isWriteTool, writeTarget } from '../../model/tools.js';
import { ShopDifference, WriteIdentity } from './records.js';
import { type RunOutcome } from './outcome.js';
import type { Verdict } from './verdict.js';

export const CHECK_NAMES = [
  'done-twice',
  'lost-write',
  'refused-repeat',
  'different-write',
  'shop-differs',
  'different-answer',
  'invalid-conversation',
  'half-answer',
  'answer-twice',
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

/** What the checks read: the verdict, and the run behind it (to tell a lost write from a refused one). */
export interface Judged {
  scenario: Scenario;
  outcome: RunOutcome;
  verdict: Verdict;
}

/**
 * Writes the baseline committed that this run never even sent: a step recorded as done that was
 * not, or a call the resume forgot. A write that was sent and refused (say, a refund with nothing
 * left to refund after an earlier repeat) is not lost: it is a consequence of that repeat.
 */
export function unsentWrites(j: Judged): WriteIdentity[] {
  // The shop saw a call when it committed it or answered it; a kill right after the call started
  // (before the shop ran it) leaves it unsent.
  const sent = new Set<string>();
  for (const life of j.outcome.lives) for (const e of life.events) if (e.kind === 'shop-commit' || e.kind === 'tool-result') sent.add(e.callId!);
  // Counted per identity, not as a set: when the baseline makes the same write twice (two calls
  // with the same kind, target and arguments), one of them sent does not account for the other.
  const sentCalls = new Map<string, number>();
  for (const step of j.scenario.steps.values()) {
    if (step.kind !== 'calls') continue;
    for (const c of step.calls) {
      if (!sent.has(c.id) || !isWriteTool(c.tool)) continue;
      const identity = new WriteIdentity(c.tool, writeTarget(c.tool, c.args), canonicalJson(c.args)).key;
      sentCalls.set(identity, (sentCalls.get(identity) ?? 0) + 1);
    }
  }
  const baselineCommits = new Map<string, number>();
  for (const w of j.verdict.lostWrites) {
    if (!baselineCommits.has(w.key)) baselineCommits.set(w.key, committedInBaseline(j, w.key));
  }
  const unsent: WriteIdentity[] = [];
  const lostSoFar = new Map<string, number>();
  for (const w of j.verdict.lostWrites) {
    const lost = (lostSoFar.get(w.key) ?? 0) + 1;
    lostSoFar.set(w.key, lost);
    // The baseline's calls of this write that this run never sent, at most as many as were lost.
    if (lost <= baselineCommits.get(w.key)! - (sentCalls.get(w.key) ?? 0)) unsent.push(w);
  }
  return unsent;
}

/** A write sent again after it had committed in an earlier life (a kill in its gap), that the shop refused. */
export interface RefusedRepeat {
  callId: string;
  reason: string;
}

/** Every refused repeat of the run, in the order they happened. */
export function refusedRepeats(outcome: RunOutcome): RefusedRepeat[] {
  const committedBefore = new Set<string>();
  const found: RefusedRepeat[] = [];
  for (const life of outcome.lives) {
    const committedHere = new Set<string>();
    for (const e of life.events) {
      if (e.callId === undefined) continue;
      if (e.kind === 'shop-commit') committedHere.add(e.callId);
      if (committedBefore.has(e.callId) && e.kind === 'tool-result' && e.refused !== undefined) found.push({ callId: e.callId, reason: e.refused });
    }
    for (const id of committedHere) committedBefore.add(id);
  }
  return found;
}

/** A write the run never sent, explained by an earlier cause: the refusal of a repeat made the model take another branch. */
export interface LostBecause {
  write: WriteIdentity;
  /** The call whose repeat the shop refused, and why. */
  repeat: RefusedRepeat;
}

/** The steps reachable from a step (itself included) in the scenario's graph, which has no cycle. */
function reachable(j: Judged, from: string): Set<string> {
  const seen = new Set<string>();
  const walk = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const step = j.scenario.steps.get(name);
    if (step !== undefined && step.kind === 'calls') for (const b of step.next) walk(b.goto);
  };
  walk(from);
  return seen;
}

/**
 * The steps whose calls hang on which branch the model takes after a step: reachable from one of
 * its branches but not from every one (a step every branch leads back to is asked for whatever
 * the results were, so its call not being sent is not the branch's doing).
 */
function branchSteps(j: Judged, from: string): Set<string> {
  const step = j.scenario.steps.get(from);
  if (step === undefined || step.kind !== 'calls') return new Set();
  const targets = [...new Set(step.next.map((b) => b.goto))].map((t) => reachable(j, t));
  const some = new Set(targets.flatMap((t) => [...t]));
  return new Set([...some].filter((name) => !targets.every((t) => t.has(name))));
}

/**
 * Root causes before consequences. The writes this run never sent, split by their first cause: a
 * write whose call hangs on the branch taken after the call of a refused repeat (in the scenario's
 * step graph: on some branch of that step, not on every one) was not sent because the model read
 * the refusal and took another branch (the repeat, from a kill in the gap, is the cause: a
 * strategy that does not promise to close the gap does not promise these either);
 * any other unsent write is lost in its own right (a step recorded as done that was not, a call
 * the resume forgot). An engine with no scripted steps has no graph: every unsent write is its own.
 */
export function lostWrites(j: Judged): { own: WriteIdentity[]; because: LostBecause[] } {
  const unsent = unsentWrites(j);
  const { own, because } = byFirstCause(j, unsent);
  return { own, because };
}

/** Writes the baseline never made that the run committed on a refusal's branch (a hand-off instead of a receipt, say). */
export function differentWritesBecause(j: Judged): LostBecause[] {
  return byFirstCause(j, j.verdict.differentWrites).because;
}

/** Splits writes into those whose calls all come after a refused repeat's call in the step graph, and the rest. */
function byFirstCause(j: Judged, writes: readonly WriteIdentity[]): { own: WriteIdentity[]; because: LostBecause[] } {
  const repeats = writes.length === 0 || j.scenario.steps.size === 0 ? [] : refusedRepeats(j.outcome);
  if (repeats.length === 0) return { own: [...writes], because: [] };
  const stepOfCall = new Map<string, string>();
  const callsOfWrite = new Map<string, string[]>();
  for (const [name, step] of j.scenario.steps) {
    if (step.kind !== 'calls') continue;
    for (const c of step.calls) {
      stepOfCall.set(c.id, name);
      if (!isWriteTool(c.tool)) continue;
      const key = new WriteIdentity(c.tool, writeTarget(c.tool, c.args), canonicalJson(c.args)).key;
      callsOfWrite.set(key, [...(callsOfWrite.get(key) ?? []), c.id]);
    }
  }
  const after = repeats.map((r) => ({ repeat: r, steps: branchSteps(j, stepOfCall.get(r.callId) ?? '') }));
  const own: WriteIdentity[] = [];
  const because: LostBecause[] = [];
  for (const w of writes) {
    const calls = callsOfWrite.get(w.key) ?? [];
    const cause = after.find((a) => calls.length > 0 && calls.every((id) => a.steps.has(stepOfCall.get(id)!)));
    if (cause === undefined) own.push(w);
    else because.push({ write: w, repeat: cause.repeat });
  }
  return { own, because };
}

/** How many times the baseline committed this write: what the run committed plus what it lost. */
function committedInBaseline(j: Judged, key: string): number {
  let committed = 0;
  for (const w of j.outcome.writes) if (WriteIdentity.of(w).key === key) committed++;
  for (const w of j.verdict.lostWrites) if (w.key === key) committed++;
  return committed;
}

/** Tables whose `id` is a row number the shop hands out, not a business id. */
const NUMBERED_TABLES = new Set(['refunds', 'cancellations', 'address_changes', 'emails', 'handoffs']);

/**
 * The shop's rows that differ from the baseline's, ignoring the row numbers the shop hands out:
 * two writes committed in another order (parallel calls finishing the other way round) swap their
 * numbers but leave the same shop. Everything else counts, the final address and status included.
 */
export function shopStateDifference(v: Verdict): ShopDifference[] {
  const balance = new Map<string, { table: string; row: string; n: number }>();
  for (const d of v.shopDiff) {
    let row = d.row;
    if (NUMBERED_TABLES.has(d.table)) {
      const { id: _id, ...fields } = JSON.parse(row) as Record<string, unknown>;
      row = JSON.stringify(fields);
    }
    const key = `${d.table} ${row}`;
    const entry = balance.get(key) ?? { table: d.table, row, n: 0 };
    entry.n += d.sign === '+' ? 1 : -1;
    balance.set(key, entry);
  }
  const differences: ShopDifference[] = [];
  for (const { table, row, n } of balance.values()) for (let i = 0; i < Math.abs(n); i++) differences.push(new ShopDifference(n > 0 ? '+' : '-', table, row));
  return differences;
}

/** The text is the whole of one of the scenario's answers (an engine with no scripted answers has none to compare). */
function isWholeAnswer(j: Judged, text: string): boolean {
  for (const step of j.scenario.steps.values()) if (step.kind === 'answer' && step.text === text) return true;
  return false;
}

/**
 * Half an answer acted on: delivered to the customer, kept as a reply in the conversation that
 * survives, or a tool started for a call no completed reply asked for.
 */
function halfAnswerActedOn(j: Judged): boolean {
  if (j.verdict.partialAnswerDelivered) return true;
  const { steps } = j.scenario;
  if (steps.size === 0) return false;
  for (const m of j.outcome.finalConversation ?? []) {
    if (m.role !== 'assistant') continue;
    if (m.toolCalls.length === 0 && !isWholeAnswer(j, m.content)) return true;
    if (m.toolCalls.length > 0 && m.content !== '') return true;
  }
  const known = new Set<string>();
  for (const s of steps.values()) if (s.kind === 'calls') for (const c of s.calls) known.add(c.id);
  for (const life of j.outcome.lives) for (const e of life.events) if (e.kind === 'tool-start' && !known.has(e.callId!)) return true;
  return false;
}

export interface Check {
  name: CheckName;
  /** How a failure of it reads in a report. */
  label: string;
  fails(j: Judged): boolean;
}

/** Every check, in the order reports list them. */
export const CHECKS: readonly Check[] = [
  { name: 'done-twice', label: 'done twice', fails: (j) => j.verdict.doneTwice.length > 0 },
  // Judged on causes: a write not sent because a repeat in the gap was refused is that repeat's consequence.
  { name: 'lost-write', label: 'lost (never sent)', fails: (j) => j.verdict.lostWrites.length > 0 && lostWrites(j).own.length > 0 },
  { name: 'refused-repeat', label: 'refused repeat', fails: (j) => j.verdict.refusedTotal > 0 },
  { name: 'different-write', label: 'different write', fails: (j) => j.verdict.differentWrites.length > 0 },
  { name: 'shop-differs', label: 'shop state differs', fails: (j) => j.verdict.shopDiff.length > 0 && shopStateDifference(j.verdict).length > 0 },
  { name: 'different-answer', label: 'different answer', fails: (j) => !j.verdict.sameAnswer },
  // A journal that cannot be read back is a conversation the resume cannot continue.
  { name: 'invalid-conversation', label: 'invalid conversation', fails: (j) => !j.verdict.conversationValid || j.verdict.recoveryError !== null },
  { name: 'half-answer', label: 'half answer acted on', fails: halfAnswerActedOn },
  { name: 'answer-twice', label: 'answer delivered more than once', fails: (j) => j.verdict.answersDelivered > 1 },
];

/** How a failing check reads in a report. */
export const CHECK_LABELS = Object.fromEntries(CHECKS.map((c) => [c.name, c.label])) as Record<CheckName, string>;

/** Every check the run fails, promised or not, in CHECKS order. */
export function failedChecks(j: Judged): CheckName[] {
  const failed: CheckName[] = [];
  for (const check of CHECKS) if (check.fails(j)) failed.push(check.name);
  return failed;
}

/** The promised checks the verdict fails. */
export function brokenPromises(promised: readonly CheckName[], j: Judged): CheckName[] {
  return failedChecks(j).filter((c) => promised.includes(c));
}
