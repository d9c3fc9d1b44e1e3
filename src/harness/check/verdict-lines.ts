// A verdict's differences from the baseline, one line each: the one wording the reports print and
// the corpus compares a replay by (an entry records what its case found, as these lines).

import type { WriteIdentity } from './records.js';
import type { Verdict } from './verdict.js';

/** What differs from the baseline, one line each, e.g. "refund O-1042/L1 committed twice". */
export function differences(v: Verdict): string[] {
  const lines: string[] = [];
  // The arguments go last, after what happened to the write; an effect recorded with none shows none.
  const write = (w: WriteIdentity, what: string): string => `${w.kind} ${w.target} ${what}${w.args === 'null' ? '' : ` (${w.args})`}`;
  for (const w of v.doneTwice) lines.push(write(w, 'committed twice'));
  for (const w of v.lostWrites) lines.push(write(w, 'never committed, though the baseline committed it'));
  for (const w of v.differentWrites) lines.push(write(w, 'committed, a write the baseline never made'));
  for (const [reason, n] of Object.entries(v.refused)) lines.push(`${n} repeat${n === 1 ? '' : 's'} refused by the shop's rules (${reason})`);
  if (!v.sameAnswer) lines.push(answerDifference(v.answer, v.baselineAnswer));
  if (v.conversationProblem !== null) lines.push(`invalid conversation: ${v.conversationProblem}`);
  if (v.recoveryError !== null) lines.push(`recovery failed: ${v.recoveryError}`);
  if (v.partialAnswerDelivered) lines.push('a partial answer was delivered');
  if (v.answersDelivered > 1) lines.push(`the answer was delivered ${v.answersDelivered} times`);
  for (const d of v.shopDiff) lines.push(`shop: ${d}`);
  return lines;
}

/** How much of an answer a line shows before it is cut ("..."). */
const SHOWN_CHARS = 87;
/** An answer this long or shorter is shown whole. */
const WHOLE_CHARS = 90;
/** Where answers differ past what a line shows from their start, how much of what they share is shown before the difference. */
const CONTEXT_BEFORE_CHARS = 25;
/** How much further back the excerpt may start, to start at a word. */
const WORD_START_CHARS = 15;

/**
 * Two answers that differ, each quoted so that the difference shows: from the start when it falls
 * within what is shown of both (the form corpus entries record), else each cut the same way around
 * the first character where they differ, "..." before, so two long answers that differ late do
 * not read the same.
 */
export function answerDifference(answer: string | null, baseline: string | null): string {
  const from = answer === null || baseline === null ? 0 : excerptStart(answer, baseline);
  return `answer: ${quote(answer, from)}; baseline: ${quote(baseline, from)}`;
}

/** Where both answers' excerpts start: 0 when their difference shows from the start, else a little before it. */
function excerptStart(a: string, b: string): number {
  let d = 0;
  while (d < a.length && d < b.length && a[d] === b[d]) d++;
  const showsFromStart = (text: string) => text.length <= WHOLE_CHARS || d < SHOWN_CHARS;
  return showsFromStart(a) && showsFromStart(b) ? 0 : wordStart(a, d - CONTEXT_BEFORE_CHARS);
}

/** `at`, or the start of the word it falls in when that is near (both answers are the same up to their difference). */
function wordStart(text: string, at: number): number {
  for (let i = at; i > 0 && i >= at - WORD_START_CHARS; i--) if (text[i - 1] === ' ') return i;
  return at;
}

function quote(text: string | null, from = 0): string {
  if (text === null) return 'none delivered';
  const rest = text.slice(from);
  const shown = rest.length > WHOLE_CHARS ? `${rest.slice(0, SHOWN_CHARS)}...` : rest;
  return JSON.stringify(from > 0 ? `...${shown}` : shown);
}
