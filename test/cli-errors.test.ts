// Bad input on the command line ends in one line naming what is wrong and exit 2, never a stack trace.

import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { main } from '../src/harness/cli/main.js';
import { PROJECT_ROOT } from '../src/model/load.js';

async function run(argv: string[]): Promise<{ status: number; stderr: string[]; stdout: string[] }> {
  const stderr: string[] = [];
  const stdout: string[] = [];
  const [error, log] = [console.error, console.log];
  console.error = (text: string) => stderr.push(text);
  console.log = (text: string) => stdout.push(text);
  try {
    return { status: await main(argv), stderr, stdout };
  } finally {
    [console.error, console.log] = [error, log];
  }
}

describe('killpoint harness with a harness that cannot run or breaks the protocol', () => {
  it.each([
    [['/nonexistent/cmd'], 'killpoint harness: /nonexistent/cmd life 0: cannot start /nonexistent/cmd (no such command)'],
    [['true'], /^killpoint harness: true: left no shop\.sqlite in KILLPOINT_STATE_DIR .*bad input$/],
    [['sh', '-c', 'echo nope >> "$KILLPOINT_EVENTS"'], /^killpoint harness: sh -c .* life 0: line 1 of its events \(KILLPOINT_EVENTS\) is not JSON/],
  ])('%j: exit 2 and one line', async (command, message) => {
    const { status, stderr } = await run(['harness', '--', ...command]);
    expect(status).toBe(2);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]!.split('\n')).toHaveLength(1);
    expect(stderr[0]).toMatch(message);
  });
});

describe('options are read strictly: a value that is not what the option expects is a usage error', () => {
  it.each([
    [['harness', '--kills', '', '--', 'true'], 'killpoint harness: --kills: expected 1 or 2, got ""'],
    [['harness', '--kills', '5', '--', 'true'], 'killpoint harness: --kills: expected 1 or 2, got "5"'],
    [['harness', '--life-timeout', '0', '--', 'true'], 'killpoint harness: --life-timeout: expected seconds > 0, got "0"'],
    [['harness', '--schedule', '5,', '--', 'true'], 'killpoint harness: --schedule: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got "5,"'],
    [['check', '--seed', '1,2'], 'killpoint check: --seed: expected one integer >= 0, got "1,2"'],
    [['check', '--interleavings', '3,4'], 'killpoint check: --interleavings: expected one integer from 1 to 10000, got "3,4"'],
    [['check', '--seed', ''], 'killpoint check: --seed: expected one integer >= 0, got ""'],
    [['check', '--schedule', '5,', 'scenarios/lantern/T01-dana-torn-pad.json'], 'killpoint check: --schedule: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got "5,"'],
  ])('%j: exit 2, naming the option', async (argv, message) => {
    const { status, stderr } = await run(argv);
    expect(stderr).toEqual([message]);
    expect(status).toBe(2);
  });
});

describe('check --schedule, on a replay that fails only checks the strategy does not promise', () => {
  it('says so instead of "FAILS" above "every promised check holds", and still exits 0', async () => {
    const { status, stdout } = await run(['check', 'scenarios/lantern/T01-dana-torn-pad.json', '--strategy', 'restart', '--schedule', '39']);
    const text = stdout.join('\n');
    expect(text).toMatch(/^T01 \(.*\) under restart: fails checks the strategy does not promise: /);
    expect(text).not.toMatch(/FAILS/);
    expect(stdout.at(-1)).toBe('every promised check holds');
    expect(status).toBe(0);
  });
});

describe('bench/real.ts, the replay command every tier mismatch prints, on bad options', () => {
  it.each([
    [['--scenario', 'T99'], /^bench\/real\.ts: --scenario: no bundled scenario "T99" \(expected one of T01, /],
    [['--scenario', 'T01', '--strategy', 'journal', '--kills', 'abc'], /^bench\/real\.ts: --kills: expected integers >= -1 separated by commas, got "abc"$/],
  ])('%j: one line and exit 2', (argv, message) => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'real.ts'), ...argv], { encoding: 'utf8', cwd: PROJECT_ROOT });
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
    expect(result.status).toBe(2);
  });
});

describe('numbers are read as decimals, and out-of-range values are refused, not changed', () => {
  const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
  const IVAN = 'scenarios/lantern/T03-ivan-two-orders.json';
  const AGENT = join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py');
  it.each([
    [['check', '--seed', '0x10'], 'killpoint check: --seed: expected one integer >= 0, got "0x10"'],
    [['check', '--interleavings', ' 7'], 'killpoint check: --interleavings: expected one integer from 1 to 10000, got " 7"'],
    [['check', '--interleavings', '1000000000'], 'killpoint check: --interleavings: expected one integer from 1 to 10000, got "1000000000"'],
    [['check', DANA, '--schedule', ' 7'], 'killpoint check: --schedule: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got " 7"'],
    [['check', DANA, '--schedule', '1e3'], 'killpoint check: --schedule: expected kill points separated by commas, each an integer >= -1 or an event identity such as shop-commit[call_refund], got "1e3"'],
    [['check', DANA, '--strategy', 'journal', '--schedule', '99999'], 'killpoint check: --schedule: kill point 99999 is beyond the run: life 1 ran to its end after 73 events (kill points -1 to 72)'],
    [['check', DANA, '--strategy', 'journal', '--schedule', '5,999'], 'killpoint check: --schedule: kill point 999 is beyond the run: life 2 ran to its end after 73 events (kill points -1 to 72)'],
    [['check', IVAN, '--strategy', 'journal', '--schedule', '5', '--interleaving', '7'], 'killpoint check: --interleaving: pick 1 is 7, but only 2 calls can go next there (picks 0 to 1)'],
    [['harness', '--life-timeout', '0x10', '--', 'true'], 'killpoint harness: --life-timeout: expected seconds > 0, got "0x10"'],
    [['harness', '--concurrency', '0x2', '--', 'true'], 'killpoint harness: --concurrency: expected a whole number >= 1, got "0x2"'],
    [['harness', '--schedule', '99', '--', 'python3', AGENT], `killpoint harness: --schedule: kill point 99 is beyond the run: life 1 ran to its end after 10 events (kill points -1 to 9)`],
    [['estimate', '--gap-ms', '0x10'], 'killpoint estimate: --gap-ms: expected a number of ms >= 0, got "0x10"'],
    [['estimate', '--kills-per-task', ' 3'], 'killpoint estimate: --kills-per-task: expected a whole number >= 0, got " 3"'],
  ])('%j: exit 2, naming the option', async (argv, message) => {
    const { status, stderr } = await run(argv);
    expect(stderr).toEqual([message]);
    expect(status).toBe(2);
  });
});

describe('with --json, bad input is JSON on stdout too: a reader that parses stdout always can', () => {
  const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';
  it.each([
    [['check', '--seed', '0x10', '--json'], 'killpoint check: --seed: expected one integer >= 0, got "0x10"'],
    [['check', DANA, '--strategy', 'journal', '--schedule', '99999', '--json'], 'killpoint check: --schedule: kill point 99999 is beyond the run: life 1 ran to its end after 73 events (kill points -1 to 72)'],
    [['harness', '--json', '--concurrency', '0x2', '--', 'true'], 'killpoint harness: --concurrency: expected a whole number >= 1, got "0x2"'],
  ])('%j: exit 2, the line on stderr and { exitCode, error } on stdout', async (argv, message) => {
    const { status, stderr, stdout } = await run(argv);
    expect(status).toBe(2);
    expect(stderr).toEqual([message]);
    expect(JSON.parse(stdout.join('\n'))).toEqual({ exitCode: 2, error: message });
  });

  it('a --json after -- is the harness command\'s own word: stdout stays empty', async () => {
    const { status, stdout } = await run(['harness', '--concurrency', '0x2', '--', 'true', '--json']);
    expect(status).toBe(2);
    expect(stdout).toEqual([]);
  });
});
