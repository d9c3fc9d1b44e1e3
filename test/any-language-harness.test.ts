// killpoint against a harness that is not TypeScript: the Python refund agent in
// agents/python/refund_agent.py speaks the protocol alone (environment variables, an events
// file, SIGKILL to itself). At every kill point, without keys it refunds Dana twice exactly when
// the kill lands in the gap (after the shop's commit, before the journal's rename); with a key
// made from the run and the step, it never does.

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/model/load.js';
import { runExternal, type ExternalHarness } from '../src/harness/engines/external/external.js';
import { checkEveryKillPoint } from '../src/harness/api/every-kill-point.js';
import { harnessCommand } from '../src/harness/cli/commands/harness.js';
import { UsageError } from '../src/harness/usage-error.js';
import { lifeEnd, ProtocolError } from '../src/harness/process/protocol.js';

const AGENT = join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py');
const python = (keys: boolean): ExternalHarness => ({
  name: `python3 refund_agent.py${keys ? ' --keys' : ''}`,
  command: 'python3',
  args: [AGENT, ...(keys ? ['--keys'] : [])],
});

describe('a Python harness, through the protocol alone', () => {
  it('without keys: killpoint finds the gap, and only the gap', async () => {
    const verdicts = await checkEveryKillPoint(python(false));
    const failing = verdicts.filter((v) => !v.ok);
    expect(failing.map((v) => v.killedAfterEvent)).toEqual(['refund step-2: shop commit', 'refund step-2: result', 'journal written (not yet renamed)']);
    for (const v of failing) {
      expect(v.doneTwice.map(String)).toEqual(['refund O-1042/L1 {"amountCents": 7950, "lineId": "L1", "orderId": "O-1042"}']);
      expect(v.sameAnswer).toBe(false);
    }
    expect(verdicts.length).toBeGreaterThan(failing.length);
  });

  it('with keys from the run and the step: every kill point passes', async () => {
    const verdicts = await checkEveryKillPoint(python(true));
    expect(verdicts.filter((v) => !v.ok)).toEqual([]);
    expect(verdicts.map((v) => v.kills[0])).toEqual(Array.from({ length: verdicts.length }, (_, i) => i - 1));
  });
});

describe('killpoint harness -- <command>', () => {
  it('replays one kill point, by index or by identity, and fails when it lands in the gap', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (text: string) => lines.push(text);
    try {
      expect(await harnessCommand(['--schedule', '5', '--json', '--', 'python3', AGENT])).toBe(1);
      expect(await harnessCommand(['--schedule', 'shop-commit[step-2]', '--json', '--', 'python3', AGENT])).toBe(1);
    } finally {
      console.log = log;
    }
    const [byIndex, byIdentity] = lines.map((l) => JSON.parse(l));
    expect(byIndex).toMatchObject({ schedule: { kills: [5] }, broken: ['done-twice', 'different-answer'] });
    expect(byIdentity).toEqual(byIndex);
  });

  it('explores and reports like check: the minimal kill point, what differs, and the command that replays it', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (text: string) => lines.push(text);
    try {
      expect(await harnessCommand(['--', 'python3', AGENT])).toBe(1);
    } finally {
      console.log = log;
    }
    const text = lines.join('\n');
    expect(text).toMatch(/failures: done twice 3, different answer 3/);
    expect(text).toMatch(/5 +refund step-2: shop commit +<-- KILL/);
    expect(text).toMatch(new RegExp(`replay: npx killpoint harness --schedule 5 -- python3 ${AGENT.replace(/[.]/g, '\\.')}$`, 'm'));
  });

  it('is a usage error without a command', async () => {
    await expect(harnessCommand(['--kills', '5'])).rejects.toThrow(UsageError);
  });
});

describe('a recovery that crashes is a verdict, not bad input', () => {
  // The agent works until it is killed; every recovery then dies on an uncaught error.
  const crashesOnResume = ['sh', '-c', `if [ "$KILLPOINT_LIFE" != 0 ]; then echo 'Traceback (most recent call last):' >&2; echo "RuntimeError: cannot resume" >&2; exit 1; fi; exec python3 ${AGENT} --keys`];

  // One kill point replayed, not every one explored: each recovery crashes alike, and a crash read
  // as bad input would end the replay with an error as it would the exploration. Replayed with the
  // words the replay line prints (`--schedule -1`, a negative number after an option).
  it('fails the kill point with what the agent printed, and the command that replays it', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (text: string) => lines.push(text);
    try {
      expect(await harnessCommand(['--schedule', '-1', '--', ...crashesOnResume])).toBe(1);
    } finally {
      console.log = log;
    }
    const text = lines.join('\n');
    expect(text).toMatch(/kill schedule: -1 \(start\)/);
    expect(text).toMatch(/recovery failed: the agent crashed \(exit 1\): RuntimeError: cannot resume/);
    expect(text).toMatch(/replay: npx killpoint harness --schedule -1 -- sh -c /);
  });

  it('but a run never killed that crashes leaves nothing to compare with: bad input', async () => {
    await expect(harnessCommand(['--', 'sh', '-c', 'echo "ValueError: no" >&2; exit 1'])).rejects.toThrow(/the run without a kill did not finish: the agent crashed \(exit 1\): ValueError: no/);
  });
});

describe('a life that never ends does not hang killpoint', () => {
  it('a life past --life-timeout is killed with everything it started: bad input, at once', async () => {
    const started = Date.now();
    await expect(harnessCommand(['--life-timeout', '1', '--', 'sh', '-c', 'sleep 30 & sleep 30'])).rejects.toThrow(/a life did not end within 1 s; it was killed/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('a grandchild left holding stderr open dies with its life, which ends when its process does', async () => {
    const started = Date.now();
    await expect(harnessCommand(['--', 'sh', '-c', 'sleep 30 & exit 0'])).rejects.toThrow(/left no shop\.sqlite/);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('a harness that breaks the protocol is bad input, not a verdict', () => {
  const sh = (script: string): ExternalHarness => ({ name: `sh ${script}`, command: 'sh', args: ['-c', script] });

  it('one that ignores its kill point fails the check instead of passing every kill point', async () => {
    const deaf: ExternalHarness = { name: 'deaf', command: 'env', args: ['-u', 'KILLPOINT_KILL_AFTER', 'python3', AGENT] };
    await expect(checkEveryKillPoint(deaf)).rejects.toThrow(new ProtocolError('deaf life 0: the harness did not kill itself before its first event (KILLPOINT_KILL_AFTER=-1): it wrote 10 events and exited 0; a harness that breaks the protocol is bad input'));
  });

  it('one that cannot be started, leaves no shop, or writes an event that is not JSON: the life and the line, not a temp file', async () => {
    await expect(runExternal({ name: 'nowhere', command: '/nonexistent/cmd', args: [] }, [])).rejects.toThrow(new ProtocolError('nowhere life 0: cannot start /nonexistent/cmd (no such command)'));
    await expect(runExternal({ name: 'true', command: 'true', args: [] }, [])).rejects.toThrow(/^true: left no shop.sqlite in KILLPOINT_STATE_DIR/);
    const garbage = sh('echo \'{"index": 0, "kind": "start"}\' >> "$KILLPOINT_EVENTS"; echo nope >> "$KILLPOINT_EVENTS"');
    const error = await runExternal(garbage, []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/^sh .* life 0: line 2 of its events \(KILLPOINT_EVENTS\) is not JSON/);
    expect((error as Error).message).not.toMatch(/killpoint-external-/);
  });
});

describe('how a life ends is decided in one place, for any harness and the real tier alike', () => {
  const exit = (code: number | null, signal: NodeJS.Signals | null = null) => ({ code, signal, stderr: '' });

  it('SIGKILL right after the kill point is a kill; 0 and 3 before reaching it are a finish and a failure', () => {
    expect(lifeEnd(exit(null, 'SIGKILL'), 6, 5, 'x')).toBe('killed');
    expect(lifeEnd(exit(null, 'SIGKILL'), 0, -1, 'x')).toBe('killed');
    expect(lifeEnd(exit(0), 4, null, 'x')).toBe('finished');
    expect(lifeEnd(exit(0), 4, 9, 'x')).toBe('finished');
    expect(lifeEnd(exit(3), 4, 9, 'x')).toBe('failed');
  });

  it('alive after its kill point, killed elsewhere, or crashed: a protocol error', () => {
    expect(() => lifeEnd(exit(0), 6, 5, 'x')).toThrow(new ProtocolError('x: the harness did not kill itself after event 5 (KILLPOINT_KILL_AFTER=5): it wrote 6 events and exited 0; a harness that breaks the protocol is bad input'));
    expect(() => lifeEnd(exit(0), 11, 5, 'x')).toThrow(/did not kill itself after event 5/);
    expect(() => lifeEnd(exit(3), 6, 5, 'x')).toThrow(/did not kill itself after event 5 .* exited 3/);
    expect(() => lifeEnd(exit(0), 0, -1, 'x')).toThrow(/did not kill itself before its first event .* 0 events and exited 0/);
    expect(() => lifeEnd(exit(null, 'SIGKILL'), 4, 5, 'x')).toThrow(/killed by SIGKILL after event 3, but its kill point was 5/);
    expect(() => lifeEnd(exit(null, 'SIGKILL'), 4, null, 'x')).toThrow(/kill point was none/);
    expect(() => lifeEnd({ code: 1, signal: null, stderr: 'Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: \'x\'\n' }, 2, null, 'x')).toThrow(new ProtocolError("x: the harness crashed (exit 1); a harness that breaks the protocol is bad input: KeyError: 'x'"));
  });
});
