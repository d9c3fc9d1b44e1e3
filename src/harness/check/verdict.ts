// The checker, kept apart from the system under test: it only reads what a run left behind (the
// shop's logs and rows, the delivered answers, the events) and compares it with the baseline, the
// same task run without a kill.
//
// Counts, defined once here so that every figure means one thing:
// - extra writes: committed writes the baseline does not have (multiset difference on kind,
//   target and arguments). Each is either done twice (the baseline made that write) or a
//   different write (the baseline never made it).
// - sent again: write calls (by call id) that already committed in an earlier life and ran again.
//   Each one was committed again, refused by the shop's rules, or made harmless by its key.
// - model calls redone: model calls started in all lives minus the baseline's.

import type { Scenario } from '../../model/scenario.js';
import { ShopDifference, WriteIdentity } from './records.js';
import { runConversationProblem, type RunOutcome } from './outcome.js';

export interface Verdict {
  scenarioId: string;
  strategy: string;
  kills: number[];
  interleaving: number[];
  writesCommitted: number;
  extraWrites: number;
  doneTwice: WriteIdentity[];
  differentWrites: WriteIdentity[];
  lostWrites: WriteIdentity[];
  sentAgain: number;
  /** Writes sent again that the shop's rules refused, by reason. */
  refused: Record<string, number>;
  refusedTotal: number;
  /** Writes sent again that a key made harmless (the shop returned the first result). */
  harmlessRepeats: number;
  shopDiff: ShopDifference[];
  answer: string | null;
  baselineAnswer: string | null;
  sameAnswer: boolean;
  answersDelivered: number;
  /** A delivered answer that is not a complete answer of the scenario: half an answer acted on. */
  partialAnswerDelivered: boolean;
  modelCalls: number;
  modelCallsRedone: number;
  conversationValid: boolean;
  conversationProblem: string | null;
  /** Times the customer saw the answer start streaming again. */
  answerRestarts: number;
  recoveryError: string | null;
}

function counts(items: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const item of items) m.set(item, (m.get(item) ?? 0) + 1);
  return m;
}

export interface WriteComparison {
  extraWrites: number;
  doneTwice: WriteIdentity[];
  differentWrites: WriteIdentity[];
  lostWrites: WriteIdentity[];
}

/**
 * Committed writes (as identities: kind, target, arguments) against the baseline's, as multisets:
 * each write beyond the baseline's count is extra, done twice when the baseline made that write,
 * different when it never did; each baseline write the run lacks is lost. Used by both tiers and
 * by the verdict of a harness in any language, so the counts mean one thing everywhere.
 */
export function compareWrites(run: readonly WriteIdentity[], baseline: readonly WriteIdentity[]): WriteComparison {
  const byKey = new Map<string, WriteIdentity>();
  for (const w of run) if (!byKey.has(w.key)) byKey.set(w.key, w);
  for (const w of baseline) if (!byKey.has(w.key)) byKey.set(w.key, w);
  const runWrites = counts(run.map((w) => w.key));
  const baseWrites = counts(baseline.map((w) => w.key));
  const doneTwice: WriteIdentity[] = [];
  const differentWrites: WriteIdentity[] = [];
  const lostWrites: WriteIdentity[] = [];
  for (const [key, n] of runWrites) {
    const b = baseWrites.get(key) ?? 0;
    for (let i = b; i < n; i++) (b > 0 ? doneTwice : differentWrites).push(byKey.get(key)!);
  }
  for (const [key, b] of baseWrites) for (let i = runWrites.get(key) ?? 0; i < b; i++) lostWrites.push(byKey.get(key)!);
  return { extraWrites: doneTwice.length + differentWrites.length, doneTwice, differentWrites, lostWrites };
}

export function modelCallsStarted(outcome: RunOutcome): number {
  let n = 0;
  for (const life of outcome.lives) for (const e of life.events) if (e.kind === 'model-request') n++;
  return n;
}

/** Times an answer started streaming (its first chunk arrived), over all lives. */
function answerStreamsStarted(outcome: RunOutcome): number {
  let n = 0;
  for (const life of outcome.lives) for (const e of life.events) if (e.kind === 'model-chunk' && e.final && e.chunk === 0) n++;
  return n;
}

/**
 * The text is the whole of one of the scenario's answers. A task with no scripted answers (an
 * agent behind the kill protocol runs a task of its own) has none to compare: any text passes.
 */
function isScenarioAnswer(scenario: Scenario, text: string): boolean {
  let scripted = false;
  for (const step of scenario.steps.values()) {
    if (step.kind !== 'answer') continue;
    if (step.text === text) return true;
    scripted = true;
  }
  return !scripted;
}

export function judge(scenario: Scenario, outcome: RunOutcome, baseline: RunOutcome): Verdict {
  const { extraWrites, doneTwice, differentWrites, lostWrites } = compareWrites(outcome.writes.map(WriteIdentity.of), baseline.writes.map(WriteIdentity.of));

  const repeats = sentAgainOutcomes(outcome);
  const refused: Record<string, number> = {};
  for (const r of repeats.refused) refused[r] = (refused[r] ?? 0) + 1;

  const answer = outcome.delivered.at(-1) ?? null;
  const baselineAnswer = baseline.delivered.at(-1) ?? null;
  const problem = chargedConversationProblem(outcome, baseline);
  const modelCalls = modelCallsStarted(outcome);
  const answerStreams = answerStreamsStarted(outcome);
  const failed = outcome.lives.find((l) => l.end === 'failed');
  return {
    scenarioId: outcome.scenarioId,
    strategy: outcome.strategy,
    kills: outcome.schedule.kills,
    interleaving: outcome.picksTaken,
    writesCommitted: outcome.writes.length,
    extraWrites,
    doneTwice,
    differentWrites,
    lostWrites,
    sentAgain: repeats.sentAgain,
    refused,
    refusedTotal: repeats.refused.length,
    harmlessRepeats: repeats.harmless,
    shopDiff: shopDiff(outcome, baseline),
    answer,
    baselineAnswer,
    // A task whose run never killed gives no answer (a graph whose state holds no messages) is judged on the rest: none is the same as none.
    sameAnswer: answer === baselineAnswer,
    answersDelivered: outcome.delivered.length,
    partialAnswerDelivered: outcome.delivered.some((text) => !isScenarioAnswer(scenario, text)),
    modelCalls,
    modelCallsRedone: modelCalls - modelCallsStarted(baseline),
    conversationValid: problem === null,
    conversationProblem: problem,
    answerRestarts: Math.max(0, answerStreams - 1),
    // A rejected conversation is reported as an invalid conversation; any other error a life
    // stopped on is the recovery failing.
    recoveryError: failed !== undefined && failed.errorKind !== 'conversation-rejected' ? failed.error : null,
  };
}

/**
 * The recovery's conversation problem, unless the run never killed has the very same one: a graph
 * that ends on a call nothing answers (a `Done` tool that stops it) leaves it so in every run, and
 * that is the agent's design, not a fault of the recovery (the report notes it once instead).
 */
function chargedConversationProblem(outcome: RunOutcome, baseline: RunOutcome): string | null {
  const problem = runConversationProblem(outcome);
  return problem !== null && problem === runConversationProblem(baseline) ? null : problem;
}

/** Follows each write call id across lives: did a call that committed run again, and how did it end? */
function sentAgainOutcomes(outcome: RunOutcome): { sentAgain: number; refused: string[]; harmless: number } {
  const committedBefore = new Set<string>();
  let sentAgain = 0;
  let harmless = 0;
  const refused: string[] = [];
  for (const life of outcome.lives) {
    const committedHere = new Set<string>();
    for (const e of life.events) {
      if (e.callId === undefined || !committedBefore.has(e.callId)) {
        if (e.kind === 'shop-commit') committedHere.add(e.callId!);
        continue;
      }
      if (e.kind === 'tool-start') sentAgain++;
      if (e.kind === 'tool-result' && e.refused !== undefined) refused.push(e.refused);
      if (e.kind === 'tool-result' && e.refused === undefined && !e.write) harmless++;
    }
    for (const id of committedHere) committedBefore.add(id);
  }
  return { sentAgain, refused, harmless };
}

function sameRows(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function shopDiff(outcome: RunOutcome, baseline: RunOutcome): ShopDifference[] {
  const diff: ShopDifference[] = [];
  // The tables in the baseline's order (the shop's snapshot lists its tables in one fixed order), then any only the run has.
  const tables = Object.keys(baseline.shop);
  for (const table of Object.keys(outcome.shop)) if (!(table in baseline.shop)) tables.push(table);
  for (const table of tables) {
    const rows = outcome.shop[table] ?? [];
    const baselineRows = baseline.shop[table] ?? [];
    if (sameRows(rows, baselineRows)) continue; // equal lists differ by nothing
    const mine = counts(rows);
    const theirs = counts(baselineRows);
    for (const [row, n] of mine) for (let i = theirs.get(row) ?? 0; i < n; i++) diff.push(new ShopDifference('+', table, row));
    for (const [row, n] of theirs) for (let i = mine.get(row) ?? 0; i < n; i++) diff.push(new ShopDifference('-', table, row));
  }
  return diff;
}
