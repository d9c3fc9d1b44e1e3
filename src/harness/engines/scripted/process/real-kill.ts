// The real kill tier. Fault model: a child process runs one life with its durable stores in real
// files and sends itself SIGKILL right after its kill point; nothing of it runs after that. The
// parent sees the signal in the exit status and starts a fresh child on the same files, which
// recovers with the same strategy. The outcome is read back from the files (the shop's SQLite
// file, the outbox, the events) into the same RunOutcome that simulate() returns, so judge()
// applies unchanged and the two tiers can be compared field by field.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../../../model/conversation.js';
import type { Scenario } from '../../../../model/scenario.js';
import type { RunEvent } from '../../../check/events.js';
import { createFileStores, storePaths } from '../../../../model/file-stores.js';
import { type LifeRecord, type RunOutcome, type Schedule } from '../../../check/outcome.js';
import { strategy as strategyNamed, type AnyStrategyName } from '../strategies.js';
import { childBundle } from '../../../process/child-bundle.js';
import { siblingModule } from '../../../process/package-paths.js';
import type { ChildExit } from '../../../process/processes.js';
import type { ProcessTier, TierLife, TierLifeRequest } from '../../../process/process-lives.js';
import { readRunStores, runProcessLife, lifeOfRequest } from '../../../process/process-life.js';
import { runWholeInProcesses } from '../../../process/whole-run.js';
import { lifeEnd } from '../../../process/protocol.js';
import { serializeScenario } from '../../../../model/scenario-json.js';
import { TS_ENV, type RunSpec } from './run-spec.js';

/** The child that runs one life (compiled once, see src/harness/process/child-bundle.ts). */
const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

interface ChildResult {
  end: 'finished' | 'failed';
  conversation?: Conversation | null;
  errorKind?: LifeRecord['errorKind'];
  error?: string;
}

/** One life in a child process, from the stores in `stateDir`. */
async function scriptedLife(scenario: Scenario, strategyName: AnyStrategyName, request: TierLifeRequest): Promise<TierLife> {
  const bundle = await childBundle({ entry: CHILD_ENTRY, packages: 'external' });
  const specPath = join(request.runDir, 'run.json');
  if (!existsSync(specPath)) writeFileSync(specPath, JSON.stringify({ scenario: serializeScenario(scenario), strategy: strategyName } satisfies RunSpec));
  const { lifeIndex, killAfter } = request;
  const what = `${scenario.id} ${strategyName} life ${lifeIndex}`;
  const ran = await runProcessLife({
    ...lifeOfRequest(request), bundle, what,
    env: { [TS_ENV.run]: specPath },
    picksVariable: TS_ENV.picks,
  });
  const life = lifeRecord(ran.exit, ran.events, killAfter, ran.resultPath, what);
  return { record: life.record, conversation: life.conversation ?? null, picks: ran.picks, widths: ran.widths };
}

const storesOf = (scenario: Scenario, stateDir: string) => {
  const paths = storePaths(stateDir);
  return readRunStores(paths.shop, paths.outbox, scenario.id);
};

/** Runs a scenario under a strategy and a kill schedule, one child process per life. */
export function realKill(scenario: Scenario, strategyName: AnyStrategyName, schedule: Schedule): Promise<RunOutcome> {
  return runWholeInProcesses(scriptedTier(strategyName), scenario, strategyNamed(strategyName).name, schedule);
}

/**
 * The strategy's lives one at a time from a folder of real files, for the explorer by
 * equivalence: the shop and the workflow's step records (rows), the journal and the outbox
 * (bytes). Every value in them is the run's own (keys are seeded by the life number, which is then
 * part of the key), so nothing needs renaming.
 */
export function scriptedTier(strategyName: AnyStrategyName): ProcessTier {
  const strategy = strategyNamed(strategyName);
  const names = storePaths('');
  return {
    name: `scripted-${strategy.name}`,
    files: [
      { name: names.shop, kind: 'sqlite' },
      { name: names.workflow, kind: 'sqlite' },
      { name: names.journal, kind: 'bytes' },
      { name: names.outbox, kind: 'bytes' },
    ],
    readsLifeIndex: strategy.keys === 'random',
    prepare: (scenario, stateDir) => createFileStores(stateDir, scenario.shop),
    life: (scenario, request) => scriptedLife(scenario, strategy.name as AnyStrategyName, request),
    stores: storesOf,
  };
}

/** How a life ended, from its exit status, its events and its result file. */
function lifeRecord(exit: ChildExit, events: RunEvent[], killAfter: number | null, resultPath: string, what: string): { record: LifeRecord; conversation?: Conversation | null } {
  const record: LifeRecord = { events, end: 'finished', killedAfter: null, error: null, errorKind: null };
  if (lifeEnd(exit, events.length, killAfter, what) === 'killed') {
    record.end = 'killed';
    record.killedAfter = killAfter;
    return { record };
  }
  const result = JSON.parse(readFileSync(resultPath, 'utf8')) as ChildResult;
  if (result.end === 'failed') {
    record.end = 'failed';
    record.error = result.error ?? null;
    record.errorKind = result.errorKind ?? null;
    return { record };
  }
  // A life that found the task already ended returns no conversation, as in the simulation.
  return result.conversation ? { record, conversation: result.conversation } : { record };
}
