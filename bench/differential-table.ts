// The engine sweeps against the scripted model report the same summary of a system: what a kill
// right after each task's first commit leaves, and which promised checks a task broke. Written
// once so that the engines' lines stay comparable.

import type { CheckName } from '../src/harness/check/checks.js';
import type { Verdict } from '../src/harness/check/verdict.js';

/** One kill point of a task under a real system, judged and compared with the scripted model. */
export interface JudgedKillPoint {
  k: number;
  identity: string;
  verdict: Verdict;
  failed: CheckName[];
  /** Where the scripted model's verdict differs (empty: they agree, or no model). */
  differences: string[];
}

type Judged = Pick<JudgedKillPoint, 'identity' | 'verdict' | 'failed'>;

/** The promised checks any kill point of one task failed, each once. */
export function brokenPromises(results: readonly Judged[], promised: readonly CheckName[]): CheckName[] {
  return [...new Set(results.flatMap((r) => r.failed.filter((c) => promised.includes(c))))];
}

/** What a kill right after each task's first shop commit leaves, summed over a system's tasks. */
export class AfterFirstWrite {
  private tasks = 0;
  private sentAgain = 0;
  private doneTwice = 0;
  private refused = 0;
  private readonly refusedBy: Record<string, number> = {};
  private different = 0;
  private sameAnswer = 0;

  /** Adds one task's kill points (the first at a shop commit, if the task writes at all). */
  add(results: readonly Judged[]): void {
    const first = results.find((r) => r.identity.startsWith('shop-commit'));
    if (first === undefined) return;
    const v = first.verdict;
    this.tasks++;
    this.sentAgain += v.sentAgain;
    this.doneTwice += v.doneTwice.length;
    this.refused += v.refusedTotal;
    for (const [reason, n] of Object.entries(v.refused)) this.refusedBy[reason] = (this.refusedBy[reason] ?? 0) + n;
    this.different += v.differentWrites.length;
    if (v.sameAnswer) this.sameAnswer++;
  }

  /** The system's line. */
  line(name: string): string {
    const reasons = Object.entries(this.refusedBy).map(([r, n]) => `${n} ${r}`).join(', ');
    return `${name}, killed right after each task's first commit (${this.tasks} tasks that write): ${this.sentAgain} sent again, ${this.doneTwice} done twice, ${this.refused} refused${reasons ? ` (${reasons})` : ''}, ${this.different} different writes, same answer ${this.sameAnswer} of ${this.tasks}`;
  }
}
