// A verdict's differences from the baseline, one line each: the one wording the reports print and
// the corpus compares a replay by (an entry records what its case found, as these lines).

import type { WriteIdentity } from './records.js';
import type { Verdict } from './verdict.js';

/** What differs from the baseline, one line each, e.g. "refund O-1042/L1 committed twice". */
export function differences(v: Verdict): string[] {
  const lines: string[] = [];
  // The arguments go last, after what happened to the write.
  const write = (w: WriteIdentity, what: string): string => `${w.kind} ${w.target} ${what} (${w.args})`;
  for (const w of v.doneTwice) lines.push(write(w, 'committed twice'));
  for (const w of v.lostWrites) lines.push(write(w, 'never committed, though the baseline committed it'));
  for (const w of v.differentWrites) lines.push(write(w, 'committed, a write the baseline never made'));
  for (const [reason, n] of Object.entries(v.refused)) lines.push(`${n} repeat${n === 1 ? '' : 's'} refused by the shop's rules (${reason})`);
  if (!v.sameAnswer) lines.push(`answer: ${quote(v.answer)}; baseline: ${quote(v.baselineAnswer)}`);
  if (v.conversationProblem !== null) lines.push(`invalid conversation: ${v.conversationProblem}`);
  if (v.recoveryError !== null) lines.push(`recovery failed: ${v.recoveryError}`);
  if (v.partialAnswerDelivered) lines.push('a partial answer was delivered');
  if (v.answersDelivered > 1) lines.push(`the answer was delivered ${v.answersDelivered} times`);
  for (const d of v.shopDiff) lines.push(`shop: ${d}`);
  return lines;
}

function quote(text: string | null): string {
  if (text === null) return 'none delivered';
  return JSON.stringify(text.length > 90 ? `${text.slice(0, 87)}...` : text);
}
