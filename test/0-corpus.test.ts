// The regression corpus replays first (the file name sorts first): every kept case, as concrete
// data, must still give the verdict it expects. A bug found once is checked forever.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CorpusError, loadCorpus, loadCorpusEntry, replayEntry } from '../src/harness/search/corpus.js';

const entries = loadCorpus();

describe('regression corpus', () => {
  it('holds the chapter\'s cases', () => {
    const names = entries.map((e) => e.file.split('/').pop());
    for (const name of ['dana-restart-refunded-twice.json', 'dana-journal-refunded-twice.json', 'grace-journal-refused-then-blocked.json',
      'dana-stable-key-makes-repeat-harmless.json', 'dana-random-key-does-not.json', 'ivan-parallel-call-resume-bug.json']) {
      expect(names).toContain(name);
    }
  });

  for (const entry of entries) {
    // An entry of an engine whose lives are processes replays in processes (seconds, not microseconds).
    it(`${entry.file.split('/').pop()}: ${entry.note}`, async () => {
      const replay = await replayEntry(entry);
      expect(replay.mismatches).toEqual([]);
    }, 60_000);
  }

  it('names the file and the field of a bad entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-corpus-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ note: 'x', scenario: 'scenarios/lantern/T01-dana-torn-pad.json', strategy: 'journal', schedule: { kills: ['a'] }, property: 'p', expected: { failed: [] } }));
    expect(() => loadCorpusEntry(file)).toThrow(CorpusError);
    expect(() => loadCorpusEntry(file)).toThrow(`${file}: schedule.kills: expected a list of integers >= -1`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports an entry whose kill point no longer lands where it says', async () => {
    const entry = entries.find((e) => e.file.endsWith('dana-journal-refunded-twice.json'))!;
    const shifted = { ...entry, schedule: { ...entry.schedule, kills: [entry.schedule.kills![0]! - 1] } };
    const mismatches = (await replayEntry(shifted)).mismatches;
    expect(mismatches.join('\n')).toMatch(/killedAfter\[0\]: expected kill \d+ to be after "refund call_refund: shop commit"/);
    expect(mismatches.join('\n')).toMatch(/expected.failed: expected \[done-twice[^\]]*\], got \[\]/);
  });
});
