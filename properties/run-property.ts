// Running a property over generated cases and explaining a failure. A property is a function from
// a judged case to the problem it finds (null when it holds). On a failure, fast-check's shrunk
// case is finished off (the earliest failing kill schedule of that agent and interleaving, found
// by scanning every smaller schedule), explained by the reporter with the fast-check seed and
// path, and saved as a corpus entry when KILLPOINT_SAVE_CORPUS=1 (else the report prints the
// command that saves it).

import { fc } from '@fast-check/vitest';
import { saveCorpusEntry } from '../src/harness/search/corpus.js';
import { judgeCase, type JudgedCase } from '../src/harness/search/explore.js';
import { minimalSchedule } from '../src/harness/search/minimal.js';
import { formatFailure } from '../src/harness/report/text.js';
import type { AnyStrategyName } from '../src/harness/engines/scripted/strategies.js';
import { agentShape, describeShape, interleaving, killSchedule, runs, scenarioJson, scenarioOf, type AgentShape } from './arbitraries.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';

export interface GeneratedCase {
  shape: AgentShape;
  kills: number[];
  picks: number[];
}

export const generatedCase: fc.Arbitrary<GeneratedCase> = fc.record({ shape: agentShape, kills: killSchedule, picks: interleaving });

export type Property = (judged: JudgedCase) => string | null;

export function judgeGenerated(c: GeneratedCase, strategy: AnyStrategyName): JudgedCase {
  return judgeCase(scenarioOf(c.shape), scripted(strategy), { kills: c.kills, interleaving: c.picks });
}

/** The seed every property run uses: fixed, so a run repeats; KILLPOINT_SEED to search elsewhere. */
export function seed(): number {
  const fromEnv = Number(process.env.KILLPOINT_SEED);
  return Number.isInteger(fromEnv) ? fromEnv : 20_260_401;
}

export interface PropertyRun {
  failed: boolean;
  /** The explained minimal failure, when it failed. */
  report: string | null;
  minimal: JudgedCase | null;
}

/** Checks a property over generated agents; never throws, so a test can assert either outcome. */
export function checkProperty(name: string, file: string, strategy: AnyStrategyName, property: Property, options: { numRuns?: number; cases?: fc.Arbitrary<GeneratedCase> } = {}): PropertyRun {
  const details = fc.check(
    fc.property(options.cases ?? generatedCase, (c) => property(judgeGenerated(c, strategy)) === null),
    { seed: seed(), numRuns: runs(options.numRuns ?? 60) },
  );
  if (!details.failed || details.counterexample === null) return { failed: false, report: null, minimal: null };
  const [c] = details.counterexample;
  const scenario = scenarioOf(c.shape);
  const fails = (j: JudgedCase): boolean => property(j) !== null;
  const minimal = minimalSchedule(scenario, scripted(strategy), { kills: c.kills, interleaving: c.picks }, fails);
  const entryName = `generated-${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}-${strategy.replace(/[^a-z0-9]+/gi, '-')}`;
  const origin = { seed: details.seed, path: details.counterexamplePath ?? '', property: name };
  let saveCommand = `KILLPOINT_SAVE_CORPUS=1 KILLPOINT_SEED=${details.seed} npx vitest run ${file}`;
  if (process.env.KILLPOINT_SAVE_CORPUS === '1') {
    const saved = saveCorpusEntry(minimal, {
      name: entryName,
      note: `found by property "${name}": ${property(minimal)}`,
      property: name,
      scenarioInline: scenarioJson(c.shape),
      origin,
    });
    saveCommand = `npx killpoint check ${saved}   (saved just now)`;
  }
  const report = [
    `property "${name}" fails under ${strategy}: ${property(minimal)}`,
    formatFailure({ judged: minimal, source: { kind: 'generated', saveCommand }, origin, shape: describeShape(c.shape) }),
  ].join('\n');
  return { failed: true, report, minimal };
}

/** For a property that must hold: throws the explained failure. */
export function assertProperty(name: string, file: string, strategy: AnyStrategyName, property: Property, options: { numRuns?: number } = {}): void {
  const run = checkProperty(name, file, strategy, property, options);
  if (run.failed) throw new Error(run.report!);
}
