// Runs a scenario on a LangGraph system under a kill schedule: a fresh state folder with the
// scenario's shop, then one child process per life (the one life loop), each killing itself with
// SIGKILL right after its kill point; reads back every life's events and end, the shop's logs and
// rows, the delivered answers and the conversation the thread holds. LangChain is loaded only in
// the children: the parent stays light.

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LifeRecord, RunOutcome, Schedule } from '../../check/outcome.js';
import type { Conversation } from '../../model/conversation.js';
import type { Scenario } from '../../model/scenario.js';
import { Shop } from '../../model/shop.js';
import { childBundle } from '../../real/child-bundle.js';
import { siblingModule } from '../../real/package-paths.js';
import { lifeTimeoutFrom, withTempDir } from '../../real/processes.js';
import { picksLeft, readRunStores, runProcessLife } from '../../real/process-life.js';
import { errorLine, lifeEnd } from '../../real/protocol.js';
import { SystemInputError } from '../engine.js';
import { runLivesAsync } from '../life-loop.js';
import { serializeScenario } from '../scripted/process/run-spec.js';
import type { LangGraphConfig } from './config.js';
import { EXIT_BAD_INPUT, LG_ENV, LIFE_TIMEOUT_VARIABLE, STATE_FILES, type LangGraphFaults, type LangGraphLifeResult, type LangGraphRunSpec } from './run-spec.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

/**
 * The child with LangChain and LangGraph inlined: one file loads in a fraction of the time the
 * hundreds of modules of the packages take (better-sqlite3, native, stays in node_modules).
 */
export function langGraphChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'inline' });
}

/** `faults`: for tests only (see LangGraphFaults). */
export async function runLangGraph(scenario: Scenario, config: LangGraphConfig, systemName: string, schedule: Schedule, faults?: LangGraphFaults): Promise<RunOutcome> {
  const bundle = await langGraphChild();
  const timeoutMs = lifeTimeoutFrom(LIFE_TIMEOUT_VARIABLE);
  return withTempDir('killpoint-langgraph-', async (dir) => {
    const stateDir = join(dir, 'state');
    const specPath = join(dir, 'run.json');
    const spec: LangGraphRunSpec = { scenario: serializeScenario(scenario), config, ...(faults === undefined ? {} : { faults }) };
    writeFileSync(specPath, JSON.stringify(spec));
    mkdirSync(stateDir);
    Shop.create(scenario.shop, join(stateDir, STATE_FILES.shop)).close();
    if (faults?.checkpointsFrom !== undefined) copyFileSync(faults.checkpointsFrom, join(stateDir, STATE_FILES.checkpoints));

    const picksTaken: number[] = [];
    const pickWidths: number[] = [];
    let finalConversation: Conversation | null = null;
    const lives = await runLivesAsync(schedule.kills, async (lifeIndex, killAfter): Promise<LifeRecord> => {
      const what = `${scenario.id} langgraph ${systemName} life ${lifeIndex}`;
      const { exit, events, picks, widths, resultPath } = await runProcessLife({
        dir, stateDir, lifeIndex, killAfter, bundle, what,
        env: { [LG_ENV.run]: specPath },
        picksVariable: LG_ENV.picks,
        picksLeft: picksLeft(schedule.interleaving, picksTaken.length),
        timeoutMs,
      });
      if (exit.code === EXIT_BAD_INPUT) throw new SystemInputError(`${what}: the life cannot run on its durable state${errorLine(exit.stderr)}`);
      picksTaken.push(...picks);
      pickWidths.push(...widths);
      const end = lifeEnd(exit, events.length, killAfter, what, 'verdict');
      const record: LifeRecord = { events, end: end === 'crashed' ? 'failed' : end, killedAfter: end === 'killed' ? killAfter : null, error: null, errorKind: null };
      if (end === 'crashed') {
        // LangGraph is the system under test: a recovery that throws is a verdict about it.
        record.error = `the LangGraph life crashed (exit ${exit.code ?? exit.signal})${errorLine(exit.stderr)}`;
        record.errorKind = 'crashed';
      }
      if (end === 'failed' || end === 'finished') {
        const result = JSON.parse(readFileSync(resultPath, 'utf8')) as LangGraphLifeResult;
        if (result.end === 'failed') {
          record.error = result.error;
          record.errorKind = result.errorKind;
        } else if (result.end === 'finished' && result.conversation !== null) {
          finalConversation = result.conversation as Conversation;
        }
      }
      return record;
    });
    // A run that never reached a checkpoint on disk leaves a kill nothing to resume from: every
    // verdict would be about a restart nobody asked for.
    const baseline = schedule.kills.length === 0 ? lives[0] : undefined;
    if (baseline?.end === 'finished' && !baseline.events.some((e) => e.kind === 'checkpoint-saved')) {
      throw new SystemInputError(`${scenario.id} langgraph ${systemName}: the run without a kill finished without saving a single checkpoint through the SQLite checkpointer, so a kill would leave nothing to resume from`);
    }

    return {
      scenarioId: scenario.id,
      strategy: systemName,
      schedule,
      lives,
      picksTaken,
      pickWidths,
      ...readRunStores(join(stateDir, STATE_FILES.shop), join(stateDir, STATE_FILES.outbox), scenario.id),
      finalConversation,
    };
  });
}
