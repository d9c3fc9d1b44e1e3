// The command line. Each command lives in src/harness/cli/commands/ and returns its exit status:
// 0 when every check holds, 1 when one fails, 2 on bad input (a usage error names the option,
// a scenario error names the file and the field, a protocol error names the harness's life).

import { ScenarioError } from '../../model/scenario.js';
import { ProtocolError } from '../process/protocol.js';
import { UnknownKillPoint } from '../check/kill-points.js';
import { afterPendingSignals, Interrupted, LifeTimedOut, wasInterrupted } from '../process/processes.js';
import { BaselineDidNotFinish, SystemInputError } from '../engine.js';
import { LifeNotRepeatable } from '../process/process-lives.js';
import { UsageError } from '../usage-error.js';
import { PROMISE_NOTE, wordsText } from '../report/words.js';
import { exitWhenStdoutFails } from './reader.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../model/load.js';

type Command = (args: string[]) => Promise<number> | number;

/** The killpoint command holds its Ctrl-C handling from its start to its end (bin/killpoint.mjs). */
export { interruptibleUntilExit } from '../process/processes.js';

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  experiment: {
    summary: "the chapter's experiment: 14 Lantern tasks x 5 ways to recover x 6 kills [--json] [--html FILE]",
    load: async () => (await import('./commands/experiment.js')).experimentCommand,
  },
  estimate: {
    summary: 'how rarely a random kill finds the gap [scenario.json ...] [--gap-ms X] [--round-trip-ms Y] [--kills-per-task K] [--monte-carlo N] [--seed S] [--json] [--html FILE]',
    load: async () => (await import('./commands/estimate.js')).estimateCommand,
  },
  check: {
    summary: 'every kill point (and kill during recovery, and interleaving) of scenarios or corpus entries: <file.json ...> [--engine E] [--strategy S] [--kills 1|2] [--schedule k1,k2] [--save DIR] [--json] [--html FILE] [--shard i/n] [--tier in-process|process]; your own LangGraph graph: --langgraph <module.ts> --input <input.json> [--graph-export NAME] [--effects-export NAME] [--cassette FILE]; your own DBOS workflow: --dbos <module.ts> --input <input.json> [--workflow-export NAME]; your own Restate service: --restate <module.ts> --input <input.json> [--service-export NAME] [--handler NAME]; your own Vercel workflow: --vercel-workflow <module.ts> --input <input.json> [--workflow-export NAME]',
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  merge: {
    summary: "join the shards' JSON of check --shard i/n --json into one report: <shard.json ...> [--json]",
    load: async () => (await import('./commands/merge.js')).mergeCommand,
  },
  harness: {
    summary: 'kill an agent in any language at every kill point (the kill protocol): [--kills 1|2] [--schedule k1,k2] [--concurrency N] [--life-timeout S] [--save DIR] [--json] -- <command> [args]',
    load: async () => (await import('./commands/harness.js')).harnessCommand,
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  killpoint ${name.padEnd(11)} ${c.summary}`);
  return ['usage:', ...lines, '  killpoint help <command>   that command\'s usage', '  killpoint --version', '', 'words:', wordsText(), '', 'exit status: 0 every promised check holds, 1 one fails (with the command that replays it), 2 bad input'].join('\n');
}

function commandUsage(name: string): string {
  return [`usage: killpoint ${name} ${COMMANDS[name]!.summary.replace(/^[^[<]*?: /, '')}`, '', COMMANDS[name]!.summary, '', 'words:', wordsText(), '', PROMISE_NOTE].join('\n');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `killpoint ${pkg.version}`;
}

/** --help or -h among a command's own options (not among the words after --, which are the harness's). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

export async function main(argv: string[]): Promise<number> {
  exitWhenStdoutFails();
  const [name, ...args] = argv;
  // Asked for: usage on stdout, exit 0. Not given a command: usage on stderr, exit 2.
  if (name === '--help' || name === '-h') {
    console.log(usage());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    console.log(version());
    return 0;
  }
  if (name === undefined) {
    console.error(`killpoint: expected a command\n${usage()}`);
    return 2;
  }
  if (name === 'help') {
    const topic = args[0];
    if (topic === undefined) console.log(usage());
    else if (COMMANDS[topic]) console.log(commandUsage(topic));
    else {
      console.error(`killpoint help: unknown command "${topic}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
      return 2;
    }
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`killpoint: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  if (asksForHelp(args)) {
    console.log(commandUsage(name));
    return 0;
  }
  try {
    const status = await (await command.load())(args);
    // Interrupted as it finished: no verdict stands, and the process ends by the signal.
    await afterPendingSignals();
    return wasInterrupted() ? 130 : status;
  } catch (error) {
    // Ctrl-C: the message is out already, and the process ends by the signal (a shell reads 130).
    // An error that comes with it is one of its effects, not a finding: the same Ctrl-C reached the
    // whole process group, and a server or a bundler of ours ended by it may be seen before the
    // signal itself is (so the signal is given its turn first).
    await afterPendingSignals();
    if (error instanceof Interrupted || wasInterrupted()) return 130;
    if (error instanceof UsageError || error instanceof ScenarioError || error instanceof ProtocolError || error instanceof UnknownKillPoint || error instanceof BaselineDidNotFinish || error instanceof SystemInputError || error instanceof LifeNotRepeatable || error instanceof LifeTimedOut) {
      console.error(`killpoint ${name}: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
