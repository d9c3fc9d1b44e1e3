// The thread's side of Vercel lives in killpoint's process, the bundled agent's and a user's
// workflow's alike: what the SDK prints is muted, the world is held by the life's fence and closed
// at the kill, and a thread whose life did not run to its end runs no other (the SDK keeps its world
// in module state: see in-process-life.ts).

import type { LifeFence } from '../../in-process/fence.js';
import { serveLives } from '../../in-process/serve-lives.js';
import type { LifeCut, TierLife } from '../../process/process-lives.js';

/** Serves this thread's lives, `run` answering each job. */
export function serveVercelThreadLives<Job>(run: (job: Job, onCut: (cut: LifeCut) => void) => Promise<TierLife>): void {
  // A life speaks through its events; what the SDK prints (a killed step's error, its retries) is
  // a killed process's output, which nobody reads.
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) console[method] = () => undefined;
  serveLives(run, { keepThread: (life) => (life as TierLife).record.end === 'finished' });
}

/** Hands the life's world to its fence, closed at the kill. */
export function worldHeldBy(fence: LifeFence): (world: { close?(): Promise<void> }) => void {
  return (world) => fence.hold(world, (held) => void held.close?.().catch(() => undefined));
}
