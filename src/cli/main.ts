// The command line. Each command lives in src/cli/commands/ and returns its exit status:
// 0 when every check holds, 1 when one fails, 2 on bad input (a usage error names the option,
// a scenario error names the file and the field, a protocol error names the harness's life).

import { ScenarioError } from '../model/scenario.js';
import { ProtocolError } from '../real/protocol.js';
import { UnknownKillPoint } from '../check/kill-points.js';
import { LifeTimedOut } from '../real/processes.js';
import { BaselineDidNotFinish } from '../engines/engine.js';
import { UsageError } from './usage-error.js';

type Command = (args: string[]) => Promise<number> | number;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  experiment: {
    summary: "the chapter's experiment: 14 Lantern tasks x 5 ways to recover x 6 kills [--json]",
    load: async () => (await import('./commands/experiment.js')).experimentCommand,
  },
  estimate: {
    summary: 'how rarely a random kill finds the gap [scenario.json ...] [--gap-ms X] [--round-trip-ms Y] [--kills-per-task K] [--monte-carlo N] [--seed S] [--json]',
    load: async () => (await import('./commands/estimate.js')).estimateCommand,
  },
  check: {
    summary: 'every kill point (and kill during recovery, and interleaving) of scenarios or corpus entries: <file.json ...> [--engine E] [--strategy S] [--kills 1|2] [--schedule k1,k2] [--save DIR] [--json]',
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  harness: {
    summary: 'kill an agent in any language at every kill point (the kill protocol): [--kills 1|2] [--schedule k1,k2] [--json] -- <command> [args]',
    load: async () => (await import('./commands/harness.js')).harnessCommand,
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  killpoint ${name.padEnd(11)} ${c.summary}`);
  return ['usage:', ...lines].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    console.log(usage());
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`killpoint: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  try {
    return await (await command.load())(args);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ScenarioError || error instanceof ProtocolError || error instanceof UnknownKillPoint || error instanceof BaselineDidNotFinish || error instanceof LifeTimedOut) {
      console.error(`killpoint ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
