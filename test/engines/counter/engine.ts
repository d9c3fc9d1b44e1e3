// A test-only engine, to prove the seam is real: a tiny counter service that a task adds one to,
// with and without an idempotency key. The task is the scenario's first tool call (its id names
// the add) and its answer. One life: the add starts, the service commits it, the task records
// that it is done, then delivers the answer. A kill after the commit and before
// the record makes a recovery add again, unless the add carries a key the service remembers.
// It lives in this one folder and is registered by one line (registerEngine(counterEngine)).

import type { RunEvent } from '../../../src/harness/check/events.js';
import type { CommittedWrite, RunOutcome, Schedule } from '../../../src/harness/check/outcome.js';
import { CHECK_NAMES } from '../../../src/harness/check/checks.js';
import type { Engine, SystemUnderTest } from '../../../src/harness/engine.js';
import { STEP_RECORDED } from '../../../src/harness/check/event-kinds.js';
import { driveLife, runLives } from '../../../src/harness/life-loop.js';
import type { Scenario } from '../../../src/model/scenario.js';
import { loadScenarioFile } from '../../../src/model/load.js';
import type { ModuleEngine } from '../../../src/harness/engine.js';

/** What survives a kill: the service's counter and key table, the task's record, the answers sent. */
interface Durable {
  value: number;
  keys: Set<string>;
  writes: CommittedWrite[];
  recorded: boolean;
  delivered: string[];
}

function* life(scenario: Scenario, keyed: boolean, stores: Durable): Generator<RunEvent, void, void> {
  if (stores.delivered.length > 0) return;
  const callId = [...scenario.steps.values()].flatMap((s) => (s.kind === 'calls' ? s.calls.map((c) => c.id) : []))[0] ?? 'call_add';
  let index = 0;
  let atMs = 0;
  const event = (kind: RunEvent['kind'], interval: RunEvent['interval'], fields: Partial<RunEvent> = {}): RunEvent => ({ ...fields, index: index++, kind, atMs: (atMs += 1), interval });
  if (!stores.recorded) {
    yield event('tool-start', 'other', { callId, tool: 'add' });
    const key = keyed ? `${scenario.id}:${callId}` : null;
    if (key === null || !stores.keys.has(key)) {
      stores.value += 1;
      if (key !== null) stores.keys.add(key);
      stores.writes.push({ kind: 'add', target: 'counter', args: '{"by":1}', key });
      yield event('shop-commit', 'write-before-commit', { callId, tool: 'add', write: true });
    }
    stores.recorded = true;
    yield event('step-recorded', 'gap', { callId, step: 0 });
  }
  const answer = [...scenario.steps.values()].find((s) => s.kind === 'answer');
  stores.delivered.push(answer?.kind === 'answer' ? answer.text : '');
  yield event('answer-delivered', 'other');
}

function run(scenario: Scenario, name: string, keyed: boolean, schedule: Schedule): RunOutcome {
  const stores: Durable = { value: 0, keys: new Set(), writes: [], recorded: false, delivered: [] };
  const lives = runLives(schedule.kills, (lifeIndex, killAfter) => driveLife(lifeIndex, killAfter, () => life(scenario, keyed, stores)).record);
  return {
    scenarioId: scenario.id,
    strategy: name,
    schedule,
    lives,
    picksTaken: [],
    pickWidths: [],
    delivered: stores.delivered,
    writes: stores.writes,
    refusals: [],
    shop: { counters: [JSON.stringify({ id: 'counter', value: stores.value })] },
    finalConversation: null,
  };
}

function system(name: 'no-key' | 'with-key'): SystemUnderTest {
  return {
    engine: 'counter',
    name,
    summary: name === 'no-key' ? 'adds one; a repeat adds again' : 'adds one with the key run id + call id; a repeat is answered from the key table',
    // Both claim exactly once, so the one without a key breaks its promise in the gap.
    promised: CHECK_NAMES,
    killPoints: ['tool-start', 'shop-commit', 'step-recorded', 'answer-delivered'],
    selector: ['--engine', 'counter', '--strategy', name],
    inProcess: true,
    open: (scenario) => ({ scenario, run: (schedule) => run(scenario, name, name === 'with-key', schedule), close: () => {} }),
  };
}

const SYSTEMS = { 'no-key': system('no-key'), 'with-key': system('with-key') };

/**
 * A user's own counter task (a scenario file standing for the module), checked the way a user's
 * graph or workflow is: named by --counter on the command line, `counter` in killpointTests,
 * `engine: 'counter'` in check(). Declared here alone: nothing outside this folder names it.
 */
const counterModule: ModuleEngine = {
  cliOption: '--counter',
  vitestField: 'counter',
  kind: 'your own counter task (test only)',
  exports: 'a counter task',
  flags: [{ flag: '--key', field: 'key', value: 'yes|no', expected: 'yes or no' }],
  system: (options) => {
    const keyed = options.key === 'yes';
    const input = typeof options.inputFile === 'string' ? options.inputFile : JSON.stringify(options.input);
    return { ...SYSTEMS[keyed ? 'with-key' : 'no-key'], ownTask: loadScenarioFile(options.module), selector: ['--counter', options.module, '--input', input, ...(keyed ? ['--key', 'yes'] : [])] };
  },
};

export const counterEngine: Engine = {
  name: 'counter',
  summary: 'a counter service, with and without a key (test only)',
  systemNames: Object.keys(SYSTEMS),
  defaultSystems: Object.keys(SYSTEMS),
  system: (name) => SYSTEMS[name as keyof typeof SYSTEMS],
  // The task's record of its add is a workflow's step record: the shared kind, declared once.
  eventKinds: [STEP_RECORDED],
  module: counterModule,
};
