// The generators killpoint's properties use live in src/fast-check (users get them as
// killpoint/fast-check); the number of runs per property is a setting of this suite.

export * from '../src/fast-check/arbitraries.js';

/** fast-check's runs per property: small by default, KILLPOINT_RUNS for a deep search. */
export function runs(defaultRuns: number): number {
  const fromEnv = Number(process.env.KILLPOINT_RUNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : defaultRuns;
}
