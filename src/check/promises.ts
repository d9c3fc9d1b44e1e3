// The checks a kill-and-resume run is held to, and which of them each way of recovering promises.
// This is the one place that decides what "fails" means for `killpoint check`, the explorer, the
// properties and the corpus.
//
// Why each strategy promises what it does (DESIGN.md sections 2 and 4):
// - restart keeps nothing of the agent, so it redoes work and may repeat any write or take another
//   path; all it can promise is that each life's conversation is valid (it starts from scratch)
//   and that no half answer is delivered (the answer is only sent once complete).
// - journal and workflow without keys record every step after it returns, so nothing recorded is
//   ever lost; but a kill in the gap between a write's commit and its record makes the resume send
//   the write again (done twice, or refused by the shop's rules, and then a different path and a
//   different answer). They promise no lost write, a valid conversation, no half answer.
// - with keys (journal+keys, workflow+keys) the repeat is answered from the key table: every write
//   happens exactly once, so they promise every check: nothing done twice, lost, refused, or
//   different, the same shop state, the same answer, a valid conversation, no half answer.
// A broken variant promises what the strategy it imitates promises (random keys claim to be keys;
// a last-message resume claims to be journal+keys; a journal with a bad write order claims to be
// a journal): that is the promise it breaks, and a check that catches it proves the check can fail.

import { canonicalJson } from '../model/canonical-json.js';
import type { Scenario } from '../model/scenario.js';
import { isWriteTool, writeTarget } from '../model/tools.js';
import { type RunOutcome } from './outcome.js';
import type { Strategy } from '../engines/scripted/strategies.js';
import type { Verdict } from './verdict.js';

export const CHECKS = [
  'done-twice',
  'lost-write',
  'refused-repeat',
  'different-write',
  'shop-differs',
  'different-answer',
  'invalid-conversation',
  'half-answer',
] as const;

export type CheckName = (typeof CHECKS)[number];

/** How a failing check reads in a report. */
export const CHECK_LABELS: Record<CheckName, string> = {
  'done-twice': 'done twice',
  'lost-write': 'lost (never sent)',
  'refused-repeat': 'refused repeat',
  'different-write': 'different write',
  'shop-differs': 'shop state differs',
  'different-answer': 'different answer',
  'invalid-conversation': 'invalid conversation',
  'half-answer': 'half answer acted on',
};

const EVERY_CHECK: readonly CheckName[] = CHECKS;
const RECORDED_STEPS: readonly CheckName[] = ['lost-write', 'invalid-conversation', 'half-answer'];
const FROM_SCRATCH: readonly CheckName[] = ['invalid-conversation', 'half-answer'];

/** The checks this strategy promises to pass at every kill schedule. */
export function promisedChecks(strategy: Strategy): readonly CheckName[] {
  if (strategy.recovery === 'restart') return FROM_SCRATCH;
  return strategy.keys === 'none' ? RECORDED_STEPS : EVERY_CHECK;
}

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
export function unsentWrites(j: Judged): string[] {
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
      const identity = `${c.tool} ${writeTarget(c.tool, c.args)} ${canonicalJson(c.args)}`;
      sentCalls.set(identity, (sentCalls.get(identity) ?? 0) + 1);
    }
  }
  const baselineCommits = new Map<string, number>();
  for (const w of j.verdict.lostWrites) baselineCommits.set(w, 0);
  for (const w of j.verdict.lostWrites) {
    if (baselineCommits.get(w) !== 0) continue;
    baselineCommits.set(w, committedInBaseline(j, w));
  }
  const unsent: string[] = [];
  const lostSoFar = new Map<string, number>();
  for (const w of j.verdict.lostWrites) {
    const lost = (lostSoFar.get(w) ?? 0) + 1;
    lostSoFar.set(w, lost);
    // The baseline's calls of this write that this run never sent, at most as many as were lost.
    if (lost <= baselineCommits.get(w)! - (sentCalls.get(w) ?? 0)) unsent.push(w);
  }
  return unsent;
}

/** How many times the baseline committed this write: what the run committed plus what it lost. */
function committedInBaseline(j: Judged, identity: string): number {
  let committed = 0;
  for (const w of j.outcome.writes) if (`${w.kind} ${w.target} ${w.args}` === identity) committed++;
  return committed + j.verdict.lostWrites.filter((w) => w === identity).length;
}

/** Tables whose `id` is a row number the shop hands out, not a business id. */
const NUMBERED_TABLES = new Set(['refunds', 'cancellations', 'address_changes', 'emails', 'handoffs']);

/**
 * The shop's rows that differ from the baseline's, ignoring the row numbers the shop hands out:
 * two writes committed in another order (parallel calls finishing the other way round) swap their
 * numbers but leave the same shop. Everything else counts, the final address and status included.
 */
export function shopStateDifference(v: Verdict): string[] {
  const balance = new Map<string, number>();
  for (const line of v.shopDiff) {
    const [sign, table, ...rest] = line.split(' ');
    let row = rest.join(' ');
    if (NUMBERED_TABLES.has(table!)) {
      const { id: _id, ...fields } = JSON.parse(row) as Record<string, unknown>;
      row = JSON.stringify(fields);
    }
    const key = `${table} ${row}`;
    balance.set(key, (balance.get(key) ?? 0) + (sign === '+' ? 1 : -1));
  }
  const differences: string[] = [];
  for (const [key, n] of balance) for (let i = 0; i < Math.abs(n); i++) differences.push(`${n > 0 ? '+' : '-'} ${key}`);
  return differences;
}

/** Every check the run fails, promised or not, in CHECKS order. */
export function failedChecks(j: Judged): CheckName[] {
  const v = j.verdict;
  const failed: Record<CheckName, boolean> = {
    'done-twice': v.doneTwice.length > 0,
    'lost-write': unsentWrites(j).length > 0,
    'refused-repeat': v.refusedTotal > 0,
    'different-write': v.differentWrites.length > 0,
    'shop-differs': shopStateDifference(v).length > 0,
    'different-answer': !v.sameAnswer,
    // A journal that cannot be read back is a conversation the resume cannot continue.
    'invalid-conversation': !v.conversationValid || v.recoveryError !== null,
    'half-answer': v.partialAnswerDelivered,
  };
  return CHECKS.filter((c) => failed[c]);
}

/** The promised checks the verdict fails. */
export function brokenPromises(strategy: Strategy, j: Judged): CheckName[] {
  const promised = promisedChecks(strategy);
  return failedChecks(j).filter((c) => promised.includes(c));
}
