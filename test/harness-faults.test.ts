// Faults of the harness tier that read as something else: lives that do not repeat the run never
// killed (which passed), a recovery that hangs (which was bad input with no kill point), a run
// never killed that stops before making its shop (whose status and stderr were hidden), and a
// report whose answers and keys read the same where they differ.

import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAgent, checkAgentSchedule } from '../src/harness/api/check-agent.js';
import { answerDifference } from '../src/harness/check/verdict-lines.js';
import { main } from '../src/harness/cli/main.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { ProtocolError } from '../src/harness/process/protocol.js';
import { captureConsole } from './helpers.js';

const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'harness-faults');
const agent = (file: string, ...args: string[]): string[] => [process.execPath, join(FIXTURES, file), ...args];
const PYTHON_AGENT = join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py');

const out = captureConsole();

describe('lives that do not repeat the run never killed are refused, not judged', () => {
  it('killed lives that take another path: bad input, naming the event and the two lives', async () => {
    const status = await main(['harness', '--concurrency', '2', '--', ...agent('other-path-when-killed.mjs')]);
    expect(out.text()).toContain('life 1 of the run killed after event 0 wrote event 0 as {"index":0,"kind":"look","callId":"O-2"} where the run never killed wrote {"index":0,"kind":"look","callId":"O-1"}: an agent whose lives do not repeat cannot be judged at a kill point');
    expect(out.text()).not.toMatch(/every promised check held/);
    expect(status).toBe(2);
  });

  it('events in another order each run: refused by checkAgent too, from the two runs never killed, before any kill', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-harness-faults-'));
    try {
      const check = checkAgent({ agent: agent('order-per-run.mjs', join(dir, 'runs')), concurrency: 1 });
      await expect(check).rejects.toThrow(ProtocolError);
      await expect(check).rejects.toThrow(/two runs never killed, each from an empty KILLPOINT_STATE_DIR, differ at event 0: "look O-1" in the first, "look O-2" in the second/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a key that changes from run to run is not another path: the kill point is judged, and the changed key is the finding', async () => {
    const status = await main(['harness', '--schedule', '1', '--', ...agent('fresh-key.mjs')]);
    expect(out.text()).toMatch(/FAILS: done twice/);
    expect(out.text()).toMatch(/refund O-1\/L1 was committed with key [0-9a-f-]+, key [0-9a-f-]+: the key changed between the commits/);
    expect(status).toBe(1);
  });
});

// The life time limit leaves the run never killed (a node process and SQLite, well under a second
// on an idle machine) room for a machine busy with other test files: a run never killed past its
// limit is bad input, not the verdict asked for here.
describe('a recovery that hangs is a verdict on it', () => {
  it('the exploration reports it at its kill point, with the command that replays it, exits 1 and keeps it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-harness-faults-'));
    try {
      const status = await main(['harness', '--life-timeout', '4', '--concurrency', '2', '--save', dir, '--', ...agent('stale-lock.mjs')]);
      const text = out.text();
      expect(text).toMatch(/kill schedule: 0 \(lock-taken\)/);
      expect(text).toContain('recovery failed: the recovery hung: it did not end within 4 s after kill point 0 (lock-taken)');
      expect(text).toMatch(/replay: npx killpoint harness --schedule 0 -- /);
      expect(status).toBe(1);
      const [file] = readdirSync(dir);
      expect(JSON.parse(readFileSync(join(dir, file!), 'utf8'))).toMatchObject({ engine: 'external', schedule: { kills: [0], killAt: ['lock-taken'] } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the hung life ends as failed, with the kill point it followed, in the life it was in', async () => {
    const { judged } = await checkAgentSchedule({ agent: agent('stale-lock.mjs'), lifeTimeoutMs: 4_000 }, [1]);
    expect(judged.outcome.lives[1]).toEqual({ events: [], end: 'failed', killedAfter: null, error: 'the recovery hung: it did not end within 4 s after kill point 1 (shop-commit[refund-1])', errorKind: 'stopped', hung: true });
    const during = await checkAgentSchedule({ agent: agent('stale-lock.mjs'), lifeTimeoutMs: 4_000 }, [2, 0]);
    expect(during.judged.outcome.lives.map((l) => l.end)).toEqual(['killed', 'killed', 'failed']);
    expect(during.judged.outcome.lives[2]!.error).toBe('the recovery hung: it did not end within 4 s after kill point 0 (lock-taken) of life 2');
    expect(during.ok).toBe(false);
  });
});

describe('a run never killed that stops on an error before making its shop', () => {
  it('bad input that shows its exit status and what it wrote on stderr', async () => {
    const status = await main(['harness', '--', 'sh', '-c', 'echo "loading settings" >&2; echo "cannot read settings.toml: no such file" >&2; exit 3']);
    expect(out.text()).toMatch(/the run without a kill did not finish: .*exit 3.*cannot read settings\.toml: no such file/);
    expect(out.text()).not.toMatch(/shop\.sqlite/);
    expect(status).toBe(2);
  });
});

describe("the report shows where the answers differ, and a write's keys once", () => {
  it('answers that differ past the shown length: each cut around the first difference', async () => {
    const status = await main(['harness', '--schedule', '5', '--', 'python3', PYTHON_AGENT]);
    const text = out.text();
    expect(text).toContain('answer: "...one sleeping pad (refund #2); $0.00 is left on that line."; baseline: "...one sleeping pad (refund #1); $79.50 is left on that line."');
    expect(text).toContain('refund O-1042/L1 was committed twice with no key: nothing made the repeat harmless');
    expect(text).not.toMatch(/no key, no key/);
    expect(status).toBe(1);
  });

  it('answers that differ early keep the form corpus entries recorded', () => {
    const a = "I'm sorry the pad arrived torn, Dana. I've refunded $79.50 for a Ridgeline sleeping pad, which is all we owe you.";
    const b = "I'm sorry the pad arrived torn, Dana. I've refunded $79.50 for one Ridgeline sleeping pad, which is all we owe you.";
    expect(answerDifference(a, b)).toBe('answer: "I\'m sorry the pad arrived torn, Dana. I\'ve refunded $79.50 for a Ridgeline sleeping pad..."; baseline: "I\'m sorry the pad arrived torn, Dana. I\'ve refunded $79.50 for one Ridgeline sleeping p..."');
    expect(answerDifference(null, b)).toBe('answer: none delivered; baseline: "I\'m sorry the pad arrived torn, Dana. I\'ve refunded $79.50 for one Ridgeline sleeping p..."');
    expect(answerDifference('Done.', 'Done!')).toBe('answer: "Done."; baseline: "Done!"');
  });

  it('one answer the start of the other, past the shown length: where the shorter ends', () => {
    const start = `Your refund of $5.00 is on its way to the card you paid with; it takes three to five days. `;
    expect(answerDifference(start, `${start}Sorry again!`)).toBe('answer: "...takes three to five days. "; baseline: "...takes three to five days. Sorry again!"');
  });
});
