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

/** `withModules`: its summary goes on with each kind of user's module the registered engines check. */
const COMMANDS: Record<string, { summary: string; withModules?: true; load: () => Promise<Command> }> = {
  experiment: {
    summary: "the chapter's experiment: 14 Lantern tasks x 5 ways to recover x 6 kills [--json] [--html FILE]",
    load: async () => (await import('./commands/experiment.js')).experimentCommand,
  },
  estimate: {
    summary: 'how rarely a random kill finds the gap [scenario.json ...] [--gap-ms X] [--round-trip-ms Y] [--kills-per-task K] [--monte-carlo N] [--seed S] [--json] [--html FILE]',
    load: async () => (await import('./commands/estimate.js')).estimateCommand,
  },
  check: {
    summary: 'every kill point (and kill during recovery, and interleaving) of scenarios or corpus entries: <file.json ...> [--engine E] [--strategy S] [--kills 1|2] [--schedule k1,k2] [--save DIR] [--json] [--html FILE] [--shard i/n] [--tier in-process|process]',
    withModules: true,
    load: async () => (await import('./commands/check.js')).checkCommand,
  },
  merge: {
    summary: "join the shards' JSON of check --shard i/n --json into one report: <shard.json ...> [--json]",
    load: async () => (await import('./commands/merge.js')).mergeCommand,
  },
  harness: {
    summary: 'kill an agent in any language at every kill point (the kill protocol): [--kills 1|2] [--schedule k1,k2] [--concurrency N] [--life-timeout S] [--all] [--save DIR] [--json] [--cassette FILE [--record] [--proxy NAME=URL]] -- <command> [args]; --cassette records the HTTP of the agent once and replays it (a Node agent intercepted inside, another through KILLPOINT_PROXY_<NAME> for each --proxy); a life may run --life-timeout S, by default 10x the longest life of the run never killed + 5 s; the search stops after the earliest recovery that hangs (later kill points counted, not run) unless --all',
    load: async () => (await import('./commands/harness.js')).harnessCommand,
  },
};

/** A command's summary, with the kinds of module of its engines where it checks them (the registry is loaded only for help). */
async function summaryOf(name: string): Promise<string> {
  const command = COMMANDS[name]!;
  if (command.withModules === undefined) return command.summary;
  const [{ moduleEngines }, { moduleUsage }] = await Promise.all([import('../registry.js'), import('../user-module/module-engine.js')]);
  return [command.summary, ...moduleEngines().map((m) => moduleUsage(m.module))].join('; ');
}

async function usage(): Promise<string> {
  const lines = await Promise.all(Object.keys(COMMANDS).map(async (name) => `  killpoint ${name.padEnd(11)} ${await summaryOf(name)}`));
  return ['usage:', ...lines, '  killpoint help <command>   that command\'s usage', '  killpoint --version', '', 'words:', wordsText(), '', 'exit status: 0 every promised check holds, 1 one fails (with the command that replays it), 2 bad input'].join('\n');
}

async function commandUsage(name: string): Promise<string> {
  const summary = await summaryOf(name);
  return [`usage: killpoint ${name} ${summary.replace(/^[^[<]*?: /, '')}`, '', summary, '', 'words:', wordsText(), '', PROMISE_NOTE].join('\n');
}

function version(): string {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string };
  return `killpoint ${pkg.version}`;
}

/** Among a command's own options (not among the words after --, which are the harness's). */
function ownOptionsInclude(args: string[], ...options: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => options.includes(a));
}

/** Bad input: its one line on stderr, and with --json the same on stdout as JSON, so a reader that parses stdout always can. */
function refused(name: string, args: string[], message: string): number {
  console.error(`killpoint ${name}: ${message}`);
  if (ownOptionsInclude(args, '--json')) console.log(JSON.stringify({ exitCode: 2, error: `killpoint ${name}: ${message}` }, null, 2));
  return 2;
}

export async function main(argv: string[]): Promise<number> {
  exitWhenStdoutFails();
  const [name, ...args] = argv;
  // Asked for: usage on stdout, exit 0. Not given a command: usage on stderr, exit 2.
  if (name === '--help' || name === '-h') {
    console.log(await usage());
    return 0;
  }
  if (name === '--version' || name === '-V') {
    console.log(version());
    return 0;
  }
  if (name === undefined) {
    console.error(`killpoint: expected a command\n${await usage()}`);
    return 2;
  }
  if (name === 'help') {
    const topic = args[0];
    if (topic === undefined) console.log(await usage());
    else if (COMMANDS[topic]) console.log(await commandUsage(topic));
    else {
      console.error(`killpoint help: unknown command "${topic}" (commands: ${Object.keys(COMMANDS).join(', ')})`);
      return 2;
    }
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`killpoint: unknown command "${name}"\n${await usage()}`);
    return 2;
  }
  if (ownOptionsInclude(args, '--help', '-h')) {
    console.log(await commandUsage(name));
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
      return refused(name, args, error.message);
    }
    throw error;
  }
}
