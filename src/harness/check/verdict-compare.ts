// A real engine and the scripted strategy that models it must reach the same verdict at every kill
// point. What they must agree on is what the customer and the shop see: writes done twice and
// lost, repeats refused, the answer, model calls redone, answers delivered. Every engine's
// differential compares the same fields, so they are named once here.

import type { Verdict } from './verdict.js';

/** The parts of a verdict a real engine and its scripted model must agree on. */
export function comparableVerdict(v: Verdict) {
  return {
    doneTwice: v.doneTwice.map(String).sort(),
    lost: v.lostWrites.map(String).sort(),
    different: v.differentWrites.map(String).sort(),
    refused: v.refused,
    harmless: v.harmlessRepeats,
    sameAnswer: v.sameAnswer,
    modelCallsRedone: v.modelCallsRedone,
    answersDelivered: v.answersDelivered,
    conversationValid: v.conversationValid,
  };
}

export type ComparableVerdict = ReturnType<typeof comparableVerdict>;

/**
 * The fields in which two verdicts differ, as `field: <engine> X, scripted Y` lines (empty when
 * equal); `engine` names the real side in each line.
 */
export function verdictDifferences(engine: string, real: Verdict, scripted: Verdict): string[] {
  const a = comparableVerdict(real);
  const b = comparableVerdict(scripted);
  const lines: string[] = [];
  for (const field of Object.keys(a) as (keyof ComparableVerdict)[]) {
    const x = JSON.stringify(a[field]);
    const y = JSON.stringify(b[field]);
    if (x !== y) lines.push(`${field}: ${engine} ${x}, scripted ${y}`);
  }
  return lines;
}
