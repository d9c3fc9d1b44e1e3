// What the benches share to time their work and print it beside its target: a job timed on the
// monotonic clock, seconds as printed, and a target met or missed.

/** Runs `job`, timed. */
export async function timed<T>(job: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await job();
  return { ms: performance.now() - started, value };
}

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/** A figure's target, as printed beside it: met or MISSED in this run. */
export const target = (ok: boolean, what: string): string => `(target ${what}: ${ok ? 'met' : 'MISSED'})`;
