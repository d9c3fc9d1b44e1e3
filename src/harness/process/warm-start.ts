// The child's side of a warm start (src/harness/process/warm-pool.ts). A child's entry calls it before
// anything reads its life's variables: its imports are loaded by then (an ES module's imports are
// evaluated before its body), so a warm child waits here, loaded, until the parent hands it a life.
// Started cold (KILLPOINT_WARM unset), it returns at once and the variables are in the environment.

import { readFileSync, writeFileSync } from 'node:fs';

/** Set by the pool on the processes it starts ahead of their life. */
export const WARM_VARIABLE = 'KILLPOINT_WARM';

/**
 * Among the variables handed over: a file the child creates once it has them. A warm child that
 * ends without it died before it took its life (a spare that died just as it was handed one), and
 * the pool runs the life again in another process rather than judge that end as the life's.
 */
export const TAKEN_VARIABLE = 'KILLPOINT_WARM_TAKEN';

/** Reads the life's variables from stdin (one JSON object, then the end of stdin) into the environment. */
export function receiveLifeVariables(): void {
  if (process.env[WARM_VARIABLE] !== '1') return;
  delete process.env[WARM_VARIABLE];
  // Blocking read of fd 0 until the parent ends it: the child has nothing else to do meanwhile.
  const text = readFileSync(0, 'utf8');
  let variables: unknown;
  try {
    variables = JSON.parse(text);
  } catch (error) {
    throw new Error(`${WARM_VARIABLE}: expected the life's variables as one JSON object on stdin (${(error as Error).message})`);
  }
  if (typeof variables !== 'object' || variables === null || Array.isArray(variables)) throw new Error(`${WARM_VARIABLE}: expected the life's variables as one JSON object on stdin, got ${text.slice(0, 80)}`);
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value !== 'string') throw new Error(`${WARM_VARIABLE}: variable ${name}: expected a string, got ${JSON.stringify(value)}`);
    process.env[name] = value;
  }
  const taken = process.env[TAKEN_VARIABLE];
  delete process.env[TAKEN_VARIABLE];
  if (taken !== undefined) writeFileSync(taken, '');
}
