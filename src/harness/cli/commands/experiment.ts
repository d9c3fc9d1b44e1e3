// `killpoint experiment [--json]`: the chapter's experiment on the bundled Lantern tasks, as a
// table (then Dana's task as a strip of events with the chosen kill points), or as JSON.

import { lanternScenarios } from '../../../model/load.js';
import { UsageError } from '../../usage-error.js';
import { runExperiment } from '../../chapter/experiment.js';
import { experimentJson, formatExperiment } from '../../report/experiment-text.js';
import { experimentReportHtml } from '../../report/experiment-html.js';
import { writeReportFile } from '../../report/write.js';

/** The task drawn as a strip: Dana's, as in the chapter. */
const STRIP_TASK = 'T01';

export function experimentCommand(args: string[]): number {
  let json = false;
  let htmlPath: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--html') {
      const path = args[++i];
      if (path === undefined || path.trim() === '' || path.startsWith('-')) throw new UsageError(`--html: expected the file to write the report to, got ${path === undefined ? 'nothing' : `"${path}"`}`);
      htmlPath = path;
    } else throw new UsageError(`unknown option "${arg}" (usage: killpoint experiment [--json] [--html FILE])`);
  }
  const scenarios = lanternScenarios();
  const result = runExperiment(scenarios);
  if (htmlPath !== null) writeReportFile(htmlPath, experimentReportHtml(result, STRIP_TASK, scenarios));
  process.stdout.write(json ? experimentJson(result) : formatExperiment(result, STRIP_TASK));
  if (htmlPath !== null && !json) process.stdout.write(`HTML report: ${htmlPath}\n`);
  return 0;
}
