// `killpoint experiment [--json]`: the chapter's experiment on the bundled Lantern tasks, as a
// table (then Dana's task as a strip of events with the chosen kill points), or as JSON.

import { lanternScenarios } from '../../model/load.js';
import { UsageError } from '../usage-error.js';
import { runExperiment } from '../../chapter/experiment.js';
import { experimentJson, formatExperiment } from '../experiment-report.js';

/** The task drawn as a strip: Dana's, as in the chapter. */
const STRIP_TASK = 'T01';

export function experimentCommand(args: string[]): number {
  let json = false;
  for (const arg of args) {
    if (arg === '--json') json = true;
    else throw new UsageError(`unknown option "${arg}" (usage: killpoint experiment [--json])`);
  }
  const result = runExperiment(lanternScenarios());
  process.stdout.write(json ? experimentJson(result) : formatExperiment(result, STRIP_TASK));
  return 0;
}
