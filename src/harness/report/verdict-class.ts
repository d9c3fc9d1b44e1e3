// How one kill point reads at a glance in the HTML report: the first check it fails, in the order
// reports list the checks (src/harness/check/checks.ts), or "survived" when it fails none. One colour each.

import { CHECKS, CHECK_LABELS, type CheckName } from '../check/checks.js';

export type VerdictClass = 'survived' | CheckName;

export const VERDICT_CLASSES: readonly VerdictClass[] = ['survived', ...CHECKS.map((c) => c.name)];

export function verdictClass(failed: readonly CheckName[]): VerdictClass {
  for (const check of CHECKS) if (failed.includes(check.name)) return check.name;
  return 'survived';
}

export const VERDICT_LABELS: Record<VerdictClass, string> = { survived: 'survived', ...CHECK_LABELS };

/** Colours chosen to be told apart (and kept apart from the event kinds' greys). */
export const VERDICT_COLOURS: Record<VerdictClass, string> = {
  survived: '#2e9d57',
  'done-twice': '#d62728',
  'lost-write': '#5b2a86',
  'refused-repeat': '#ff8c1a',
  'different-write': '#e377c2',
  'shop-differs': '#8c564b',
  'different-answer': '#d4b000',
  'invalid-conversation': '#1f77b4',
  'half-answer': '#17becf',
  'answer-twice': '#7f7f7f',
};
