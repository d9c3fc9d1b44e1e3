import { describe, it, expect, vi, afterEach } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/harness/cli/main.js';
import { lanternScenarios } from '../src/model/load.js';

/** Runs the command line and collects what it printed. */
async function run(args: string[]): Promise<{ status: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  const status = await main(['estimate', ...args]);
  vi.restoreAllMocks();
  return { status, out: out.join('\n'), err: err.join('\n') };
}

afterEach(() => vi.restoreAllMocks());

describe('killpoint estimate', () => {
  it('prints a row per bundled scenario and a total', async () => {
    const { status, out } = await run([]);
    expect(status).toBe(0);
    for (const s of lanternScenarios()) expect(out).toMatch(new RegExp(`^${s.id} `, 'm'));
    expect(out).toMatch(/^total /m);
    expect(out).toMatch(/chance that none finds a gap/);
    expect(out).toMatch(/chapter: 176 of 210/);
  });

  it('gives each scenario and the total their gap odds in --json', async () => {
    const { status, out } = await run(['--json']);
    expect(status).toBe(0);
    const report = JSON.parse(out);
    expect(report.scenarios).toHaveLength(lanternScenarios().length);
    expect(report.total.gapHitProbability).toBeGreaterThan(0);
    for (const entry of [...report.scenarios, report.total]) {
      expect(typeof entry.gapHitProbability).toBe('number');
      // A task that writes nothing has no gap: it is never hit, and JSON says null for never.
      if (entry.gapHitProbability === 0) expect(entry.expectedKillsPerHit).toBeNull();
      else expect(entry.expectedKillsPerHit).toBeCloseTo(1 / entry.gapHitProbability, 6);
    }
  });

  it('takes a measured gap and a network round trip, and says null when the gap can never be hit', async () => {
    const own = JSON.parse((await run(['--json'])).out);
    const remote = JSON.parse((await run(['--json', '--gap-ms', '0.35', '--round-trip-ms', '40'])).out);
    expect(remote.total.gapHitProbability).toBeGreaterThan(own.total.gapHitProbability * 100);
    for (const s of remote.scenarios) for (const w of s.gapWidthsMs) expect(w).toBeCloseTo(40.35, 9);
    const none = JSON.parse((await run(['--json', '--gap-ms', '0'])).out);
    expect(none.total.expectedKillsPerHit).toBeNull();
    expect(none.total.noGapChance).toBe(1);
  });

  it('checks the exact odds by sampling with --monte-carlo and names the seed to replay', async () => {
    const { status, out } = await run(['scenarios/lantern/T01-dana-torn-pad.json', '--monte-carlo', '20000', '--seed', 's1']);
    expect(status).toBe(0);
    expect(out).toMatch(/monte carlo T01: exact odds inside every Wilson interval/);
    expect(out).toMatch(/replay: killpoint estimate scenarios\/lantern\/T01-dana-torn-pad.json --monte-carlo 20000 --seed s1/);
  });

  it('exits 2 with a clear message on bad input', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-estimate-'));
    try {
      const broken = join(dir, 'broken.json');
      writeFileSync(broken, '{ not json');
      const cases: Array<[string[], RegExp]> = [
        [['--gap-ms'], /--gap-ms needs a value/],
        [['--gap-ms', 'wide'], /--gap-ms: expected a number of ms >= 0, got "wide"/],
        [['--round-trip-ms', '-5'], /--round-trip-ms: expected a number of ms >= 0/],
        [['--kills-per-task', '2.5'], /--kills-per-task: expected a whole number/],
        [['--monte-carlo', '0'], /--monte-carlo: expected 1\.\.10000000 draws/],
        [['--frobnicate'], /unknown option --frobnicate/],
        [[join(dir, 'missing.json')], /missing\.json.*readable file/],
        [[broken], /broken\.json.*valid JSON/],
      ];
      for (const [args, message] of cases) {
        const { status, err } = await run(args);
        expect(status, args.join(' ')).toBe(2);
        expect(err).toMatch(message);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
