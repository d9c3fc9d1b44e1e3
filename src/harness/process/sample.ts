// The fixed sample of the differential check that `npm test` runs (all of it: bench/real.ts).
// Chosen kill points of a run: before anything, the last event, the middle chunk of the first
// reply and of the answer, the first journal save's two moments, and everything in or at the edge
// of a gap: each shop commit, the result of a committed write, and the saves and step records
// that follow a commit.

import type { RunEvent } from '../check/events.js';

export function chosenKillPoints(events: readonly RunEvent[]): number[] {
  const points = new Set<number>([-1, events.length - 1]);
  const firstReplyChunks = events.filter((e) => e.kind === 'model-chunk' && e.modelCall === 0);
  const answerChunks = events.filter((e) => e.kind === 'model-chunk' && e.final);
  for (const chunks of [firstReplyChunks, answerChunks]) {
    const middle = chunks[Math.floor(chunks.length / 2)];
    if (middle) points.add(middle.index);
  }
  const firstWrite = events.find((e) => e.kind === 'journal-write');
  if (firstWrite) {
    points.add(firstWrite.index);
    points.add(firstWrite.index + 1);
  }
  for (const e of events) {
    if (e.kind === 'shop-commit' || (e.kind === 'tool-result' && e.write)) points.add(e.index);
    if ((e.kind === 'journal-write' || e.kind === 'journal-save' || e.kind === 'step-recorded') && e.interval === 'gap') points.add(e.index);
  }
  return [...points].sort((a, b) => a - b);
}
