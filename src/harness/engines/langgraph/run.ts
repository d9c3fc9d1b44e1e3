// Runs a scenario on a LangGraph system under a kill schedule: a fresh state folder with the
// scenario's shop, then one child process per life (the one life loop), each killing itself with
// SIGKILL right after its kill point; reads back every life's events and end, the shop's logs and
// rows, the delivered answers and the conversation the thread holds. LangChain is loaded only in
// the children: the parent stays light. The same life, one at a time from a state folder, is what
// the explorer by equivalence runs (langGraphTier, src/harness/process/process-lives.ts).
//
// The same life also runs inside killpoint's own process (src/harness/in-process/): the same
// state folder, the same code, its stores closed at the kill instead of its process killed. Only
// then is LangChain loaded in this process, when the first such life starts.

import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { RunEvent } from '../../check/events.js';
import type { LifeRecord, RunOutcome, Schedule } from '../../check/outcome.js';
import type { Scenario } from '../../../model/scenario.js';
import { Shop } from '../../../model/shop.js';
import { childBundle, inlinedModule } from '../../process/child-bundle.js';
import { siblingModule } from '../../process/package-paths.js';
import { runWholeInProcesses } from '../../process/whole-run.js';
import type { LifeCut, ProcessTier, TierLife, TierLifeRequest } from '../../process/process-lives.js';
import { readRunStores, runEngineLife } from '../../process/process-life.js';
import { renameUuidsAndTimes } from '../../process/state-digest.js';
import { lifeTimeoutFrom } from '../../life-time-limit.js';
import { runInProcessLife } from '../../in-process/in-process-life.js';
import { lifeThreadCount, lifeThreadsFor } from '../../in-process/life-threads.js';
import { lifeJobOf, type BrokenLife } from '../../in-process/life-job.js';
import { langGraphInProcessLife, type LangGraphLifeJob } from './in-process-job.js';
import { SystemInputError } from '../../engine.js';
import { serializeScenario } from '../../../model/scenario-json.js';
import { TURNS_FILE } from '../../user-module/turns.js';
import { LANGGRAPH_BUNDLED_NEEDS, type LangGraphConfig } from './config.js';
import { EXIT_BAD_INPUT, LG_ENV, LANGGRAPH_LIFE_TIMEOUT_VARIABLE, LANGGRAPH_STATE_FILES, type LangGraphFaults, type LangGraphRunSpec } from './run-spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

/**
 * The child with LangChain and LangGraph inlined: one file loads in a fraction of the time the
 * hundreds of modules of the packages take (better-sqlite3, native, stays in node_modules).
 */
export function langGraphChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'inline' });
}

/** Where a LangGraph system's lives run: a child process each, or in killpoint's own process. */
export type LangGraphLivesIn = 'process' | 'in-process';

/** Where LangGraph lives run unless asked (bundled systems and users' graphs): proved equal to SIGKILL by `npm run differential:in-process`. */
export const DEFAULT_LANGGRAPH_TIER: LangGraphLivesIn = 'in-process';

interface LangGraphRun {
  scenario: Scenario;
  config: LangGraphConfig;
  systemName: string;
  faults?: LangGraphFaults;
}

/** A fresh run's state: the scenario's shop (and, for a test, the file standing in for the checkpoints). */
function prepareState(run: LangGraphRun, stateDir: string): void {
  mkdirSync(stateDir, { recursive: true });
  Shop.create(run.scenario.shop, join(stateDir, LANGGRAPH_STATE_FILES.shop)).close();
  if (run.faults?.checkpointsFrom !== undefined) copyFileSync(run.faults.checkpointsFrom, join(stateDir, LANGGRAPH_STATE_FILES.checkpoints));
}

/** One life in a child process, from the state in `stateDir`. */
async function langGraphLife(run: LangGraphRun, request: TierLifeRequest): Promise<TierLife> {
  const { scenario, systemName } = run;
  const spec: LangGraphRunSpec = { scenario: serializeScenario(scenario), config: run.config, ...(run.faults === undefined ? {} : { faults: run.faults }) };
  const child = { engine: 'LangGraph', bundle: await langGraphChild(), runFileVariable: LG_ENV.run, picksVariable: LG_ENV.picks, timeoutVariable: LANGGRAPH_LIFE_TIMEOUT_VARIABLE, badInputExit: EXIT_BAD_INPUT };
  const life = await runEngineLife(child, request, `${scenario.id} langgraph ${systemName} life ${request.lifeIndex}`, spec);
  if (request.lifeIndex === 0 && request.killAfter === null) mustSaveACheckpoint(run, life.record);
  return life;
}

const IN_PROCESS_ENTRY = siblingModule(import.meta.url, 'in-process-entry');
const THREAD_ENTRY = siblingModule(import.meta.url, 'in-process-thread');

/**
 * LangChain and LangGraph, loaded into this process once, when its first in-process life starts:
 * from the same kind of bundle the child starts from (one file, far faster to load than the
 * packages' hundreds of modules).
 */
let inProcessModule: Promise<typeof import('./in-process-entry.js')> | null = null;

function loadInProcessModule(): Promise<typeof import('./in-process-entry.js')> {
  return (inProcessModule ??= inlinedModule(IN_PROCESS_ENTRY).then((path) => createRequire(import.meta.url)(path) as typeof import('./in-process-entry.js')));
}

/**
 * Variants of the in-process tier for its own tests: a kill that cuts nothing off, a state copy
 * taken one event late, every kill point suffered by a life of its own instead of cut from one
 * repeat (the comparison the one-repeat cuts are tested by), or no threads of lives.
 */
export interface InProcessVariant extends BrokenLife {
  cutEach?: 'by a killed life';
  /** Every life on killpoint's own thread, whatever KILLPOINT_LIFE_THREADS says (what the threads are compared with). */
  ownThread?: true;
}

/**
 * One life in killpoint's own process, from the state in `stateDir`: what its child would answer.
 * It runs on a thread of lives (in-process/life-threads.ts), or on killpoint's own thread when
 * KILLPOINT_LIFE_THREADS=0: the same job, the same code, the same answer.
 */
async function langGraphLifeInProcess(run: LangGraphRun, request: TierLifeRequest, variant: InProcessVariant): Promise<TierLife> {
  const { scenario, systemName, config } = run;
  const job: LangGraphLifeJob = {
    ...lifeJobOf(request, `${scenario.id} langgraph ${systemName} life ${request.lifeIndex}`, lifeTimeoutFrom(LANGGRAPH_LIFE_TIMEOUT_VARIABLE, request), variant),
    scenario: serializeScenario(scenario),
    config,
  };
  const threads = lifeThreadCount() === 0 || variant.ownThread ? null : lifeThreadsFor(await inlinedModule(THREAD_ENTRY));
  const life = threads !== null ? await threads.run<TierLife, LifeCut>(job, request.onCut) : await runInProcessLife(langGraphInProcessLife(job, scenario, await loadInProcessModule()), request.onCut);
  if (request.lifeIndex === 0 && request.killAfter === null) mustSaveACheckpoint(run, life.record);
  return life;
}

/**
 * A run that never reached a checkpoint on disk leaves a kill nothing to resume from: every
 * verdict would be about a restart nobody asked for. Asked of the first life of the run never
 * killed (life 0 without a kill point: the baseline, in a whole run or in the explorer's tier).
 */
function mustSaveACheckpoint(run: LangGraphRun, life: LifeRecord): void {
  if (life.end === 'finished' && !life.events.some((e: RunEvent) => e.kind === 'checkpoint-saved')) {
    throw new SystemInputError(`${run.scenario.id} langgraph ${run.systemName}: the run without a kill finished without saving a single checkpoint through the SQLite checkpointer, so a kill would leave nothing to resume from`);
  }
}

const storesOf = (scenario: Scenario, stateDir: string) => readRunStores(join(stateDir, LANGGRAPH_STATE_FILES.shop), join(stateDir, LANGGRAPH_STATE_FILES.outbox), scenario.id);

/** `faults`: for tests only (see LangGraphFaults). */
export function runLangGraph(scenario: Scenario, config: LangGraphConfig, systemName: string, schedule: Schedule, faults?: LangGraphFaults, livesIn: LangGraphLivesIn = 'process'): Promise<RunOutcome> {
  return runWholeInProcesses(langGraphTier(config, systemName, faults, livesIn), scenario, systemName, schedule);
}

/**
 * The system's lives one at a time from a state folder, for the explorer by equivalence. What a
 * life reads: the shop, LangGraph's checkpoints and pending writes, the outbox. Checkpoint ids are
 * time-based UUIDs, message ids random ones, and each checkpoint has a timestamp; LangGraph only
 * compares them with each other, so the digest renames them by order (renameUuidsAndTimes).
 * `faults`: for tests only (see LangGraphFaults); a life with faults runs in a process whatever
 * `livesIn` says, since a fault hangs or ends the process it runs in. `brokenKill`: for the
 * tier's own tests only (InProcessVariant).
 */
export function langGraphTier(config: LangGraphConfig, systemName: string, faults?: LangGraphFaults, livesIn: LangGraphLivesIn = 'process', variant: InProcessVariant = {}): ProcessTier {
  const inProcess = livesIn === 'in-process' && faults === undefined;
  const run = (scenario: Scenario): LangGraphRun => ({ scenario, config, systemName, ...(faults === undefined ? {} : { faults }) });
  return {
    name: `langgraph-${systemName}${inProcess ? '-in-process' : ''}`,
    files: [
      { name: LANGGRAPH_STATE_FILES.shop, kind: 'sqlite' },
      { name: LANGGRAPH_STATE_FILES.checkpoints, kind: 'sqlite' },
      { name: LANGGRAPH_STATE_FILES.outbox, kind: 'bytes' },
      // The approval shape's record of the turns handed to its waits (the outside world's): absent for the others.
      { name: TURNS_FILE, kind: 'bytes' },
    ],
    canonical: renameUuidsAndTimes,
    needs: LANGGRAPH_BUNDLED_NEEDS,
    prepare: (scenario, stateDir) => prepareState(run(scenario), stateDir),
    cutsInOneLife: inProcess && variant.cutEach === undefined,
    life: (scenario, request) => (inProcess ? langGraphLifeInProcess(run(scenario), request, variant) : langGraphLife(run(scenario), request)),
    stores: storesOf,
  };
}
