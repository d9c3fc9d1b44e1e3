// killpoint check: exit 0 when every promise holds, 1 when one breaks (with the minimal
// counterexample and its replay command), 2 on bad input.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../src/harness/cli/main.js';

let out: string[] = [];
beforeEach(() => {
  out = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
});
afterEach(() => vi.restoreAllMocks());

const DANA = 'scenarios/lantern/T01-dana-torn-pad.json';

describe('killpoint check', () => {
  it('exits 0 when the strategies keep their promises', async () => {
    expect(await main(['check', DANA, '--strategy', 'journal', '--strategy', 'journal+keys'])).toBe(0);
    expect(out.join('\n')).toMatch(/T01 journal: ok/);
  });

  it('an ok beside failures of checks not promised says so: what is promised, what is not, which failed here', async () => {
    expect(await main(['check', DANA, '--strategy', 'restart', '--strategy', 'journal+keys'])).toBe(0);
    const text = out.join('\n');
    expect(text).toMatch(/T01 restart: ok \(every promised check held; not promised, and failed here: done twice, shop state differs, different answer\)/);
    expect(text).toMatch(/  not promised: done twice, lost \(never sent\), refused repeat, different write, shop state differs, different answer\n  failures: done twice 11 \(not promised\)/);
    expect(text).toMatch(/T01 journal\+keys: ok \(every promised check held\)\n/);
    expect(text).toMatch(/journal\+keys[^]*not promised: nothing \(every check is promised\)/);
    // Explored by equivalence: how many lives covered the schedules.
    expect(text).toMatch(/covered by \d+ lives run, \d+ of them stopped where they joined a life run before \(\d+ from scratch\): \d+ distinct durable states/);
    // A journal's recoveries join the life run before them at their next save.
    expect(text).toMatch(/journal\+keys[^]*covered by \d+ lives run, [1-9]\d* of them stopped where they joined/);
  });

  it('exits 1 on a broken variant and prints the minimal case with the command that replays it', async () => {
    expect(await main(['check', DANA, '--strategy', 'journal+random-keys'])).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(/refund O-1042\/L1 committed twice/);
    // The signature of the bug: the key is new in every life.
    expect(text).toMatch(/refund O-1042\/L1 was committed with key T01:\w+, key T01:\w+: the key changed between the commits/);
    const replay = text.match(/replay: npx killpoint check (.*)/)![1]!;
    out = [];
    expect(await main(['check', ...replay.split(' ')])).toBe(1);
    expect(out.join('\n')).toMatch(/<-- KILL/);
  });

  it('replays one exact schedule, two kills included', async () => {
    expect(await main(['check', DANA, '--strategy', 'journal+keys', '--schedule', '57,3'])).toBe(0);
    expect(out.join('\n')).toMatch(/kill schedule: 57, 3/);
  });

  it('replays corpus entries', async () => {
    expect(await main(['check', 'corpus/dana-journal-refunded-twice.json'])).toBe(0);
    expect(out.join('\n')).toMatch(/replays as expected/);
  });

  it('prints JSON', async () => {
    expect(await main(['check', DANA, '--strategy', 'workflow', '--json'])).toBe(0);
    const [result] = JSON.parse(out.join('\n')) as { ok: boolean; schedulesExplored: number }[];
    expect(result!.ok).toBe(true);
    expect(result!.schedulesExplored).toBeGreaterThan(50);
  });

  it('exits 2 on bad input, naming what is wrong', async () => {
    expect(await main(['check', DANA, '--kills', '3'])).toBe(2);
    expect(await main(['check', DANA, '--strategy', 'nope'])).toBe(2);
    expect(await main(['check', 'no/such/file.json'])).toBe(2);
    expect(await main(['check', DANA, '--schedule', 'x'])).toBe(2);
    expect(out.join('\n')).toMatch(/--kills: expected 1 or 2/);
    expect(out.join('\n')).toMatch(/no\/such\/file.json: \(file\)/);
  });
});
