// killpoint against a harness that is not TypeScript: the Python refund agent in
// harness/python/refund_agent.py speaks the protocol alone (environment variables, an events
// file, SIGKILL to itself). At every kill point, without keys it refunds Dana twice exactly when
// the kill lands in the gap (after the shop's commit, before the journal's rename); with a key
// made from the run and the step, it never does.

import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../src/model/load.js';
import { checkEveryKillPoint, type ExternalHarness } from '../src/harness/real/external.js';
import { harnessCommand } from '../src/harness/commands/harness.js';
import { UsageError } from '../src/harness/cli.js';

const AGENT = join(PROJECT_ROOT, 'harness', 'python', 'refund_agent.py');
const python = (keys: boolean): ExternalHarness => ({
  name: `python3 refund_agent.py${keys ? ' --keys' : ''}`,
  command: 'python3',
  args: [AGENT, ...(keys ? ['--keys'] : [])],
});

describe('a Python harness, through the protocol alone', () => {
  it('without keys: killpoint finds the gap, and only the gap', async () => {
    const verdicts = await checkEveryKillPoint(python(false));
    const failing = verdicts.filter((v) => !v.ok);
    expect(failing.map((v) => v.killedAfterEvent)).toEqual(['shop-commit refund step-2', 'tool-result refund step-2', 'journal-write']);
    for (const v of failing) {
      expect(v.doneTwice).toEqual(['refund O-1042/L1 {"amountCents": 7950, "lineId": "L1", "orderId": "O-1042"}']);
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
  it('replays one kill point and fails when it lands in the gap', async () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (text: string) => lines.push(text);
    try {
      expect(await harnessCommand(['--kills', '5', '--', 'python3', AGENT])).toBe(1);
    } finally {
      console.log = log;
    }
    expect(JSON.parse(lines.join('\n'))).toMatchObject({ kills: [5], killedAfterEvent: 'shop-commit refund step-2', extraWrites: 1, ok: false });
  });

  it('is a usage error without a command', async () => {
    await expect(harnessCommand(['--kills', '5'])).rejects.toThrow(UsageError);
  });
});
