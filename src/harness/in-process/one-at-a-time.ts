// In-process lives run one after another, never two at once. They share one event loop: a gate
// that orders parallel tool calls decides once the loop has settled, and another life's work in
// the same loop would make that moment depend on timing. There is nothing to gain from running
// them side by side either: they all run on this one thread.

let tail: Promise<unknown> = Promise.resolve();

/** Runs `job` once every job queued before it has ended. */
export function oneAtATime<T>(job: () => Promise<T>): Promise<T> {
  const run = tail.then(job);
  tail = run.catch(() => undefined);
  return run;
}
