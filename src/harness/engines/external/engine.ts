// An agent in any language behind the kill protocol, as an engine: its system is the command that
// starts one life (`killpoint harness -- <command>` selects it). It runs a task of its own, not
// one of our scenarios, so it is judged against its own run never killed on what the protocol lets
// killpoint read: writes done twice, different or lost, the answer, delivered once, and whether a
// recovery stopped on an error.

import type { Scenario } from '../../../model/scenario.js';
import type { CheckName } from '../../check/checks.js';
import type { Engine, SystemUnderTest } from '../../engine.js';
import { EXTERNAL_TASK, externalRuns, type ExternalHarness } from './external.js';
import { processSession } from '../../process/process-lives.js';
import { shellWords } from '../../shell-words.js';

/** What the protocol lets killpoint check, and so what an agent behind it is held to. */
export const EXTERNAL_PROMISES: readonly CheckName[] = ['done-twice', 'lost-write', 'different-write', 'different-answer', 'invalid-conversation', 'answer-twice'];

/** The task an external agent runs: its own, so the scenario holds nothing but a name. */
export function externalTask(_harness: ExternalHarness): Scenario {
  return EXTERNAL_TASK;
}

export function externalSystem(harness: ExternalHarness): SystemUnderTest {
  return {
    engine: 'external',
    name: harness.name,
    summary: `the agent started by ${harness.name}, through the kill protocol`,
    promised: EXTERNAL_PROMISES,
    killPoints: ['(the events the agent writes)'],
    selector: ['--', harness.name],
    inProcess: false,
    // Each run starts the agent afresh, in folders of its own; a session keeps only the first life
    // of its run never killed, which every killed run's first life must repeat.
    open: (scenario) => processSession(scenario, externalRuns(harness)),
  };
}

function harnessOf(commandLine: string): ExternalHarness | undefined {
  const [command, ...args] = shellWords(commandLine) ?? [];
  return command === undefined ? undefined : { name: commandLine, command, args };
}

export const externalEngine: Engine = {
  name: 'external',
  summary: 'an agent in any language, started once per life through the kill protocol (killpoint harness -- <command>)',
  systemNames: [],
  defaultSystems: [],
  system: (commandLine) => {
    const harness = harnessOf(commandLine);
    return harness === undefined ? undefined : externalSystem(harness);
  },
  ownTask: externalTask({ name: '', command: '', args: [] }),
};
