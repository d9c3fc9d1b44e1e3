import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileJournal, FileOutbox, openFileStores, createFileStores, storePaths } from '../src/model/file-stores.js';
import { JournalCorrupt, parseJournal, serializeJournal } from '../src/harness/engines/scripted/journal-format.js';
import { closeStores, MemoryJournal } from '../src/model/stores.js';
import { lanternScenario } from '../src/model/load.js';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-file-stores-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const OLD = serializeJournal('T01', [{ role: 'user', content: 'first' }]);
const NEW = serializeJournal('T01', [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'second', toolCalls: [] }]);

describe('the journal file, saved by temp write then rename', () => {
  it('keeps the old journal whole when a kill lands between the temp write and the rename, and removes the stale temp file', () => {
    const path = join(freshDir(), 'journal.json');
    const life1 = new FileJournal(path);
    life1.write(OLD);
    life1.commit();
    life1.write(NEW); // killed here: the rename never happens
    expect(existsSync(`${path}.tmp`)).toBe(true);
    const life2 = new FileJournal(path);
    expect(life2.load()).toBe(OLD);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it('holds the new text once renamed', () => {
    const path = join(freshDir(), 'journal.json');
    const journal = new FileJournal(path);
    expect(journal.load()).toBeNull();
    journal.write(NEW);
    journal.commit();
    expect(new FileJournal(path).load()).toBe(NEW);
  });
});

describe('the journal file written in place (broken)', () => {
  it('is torn by a kill in the middle of the write, exactly as the in-memory model of it', () => {
    const path = join(freshDir(), 'journal.json');
    const file = new FileJournal(path, 'in-place');
    const memory = new MemoryJournal('in-place');
    for (const j of [file, memory]) {
      j.write(OLD);
      j.commit();
      j.write(NEW); // killed here
    }
    const torn = new FileJournal(path, 'in-place').load();
    expect(torn).toBe(memory.load());
    expect(torn).not.toBe(NEW);
    expect(torn).not.toBe(OLD);
  });

  it('makes the resume fail with an error that names the file, never a resume from garbage', () => {
    const path = join(freshDir(), 'journal.json');
    const file = new FileJournal(path, 'in-place');
    file.write(NEW);
    const reopened = new FileJournal(path, 'in-place');
    expect(() => parseJournal(reopened.load()!, reopened.location, 'T01')).toThrow(JournalCorrupt);
    expect(() => parseJournal(reopened.load()!, reopened.location, 'T01')).toThrow(`cannot resume from the journal at ${path} (written in place): not valid JSON`);
  });

  it('is whole again once the write is finished', () => {
    const path = join(freshDir(), 'journal.json');
    const file = new FileJournal(path, 'in-place');
    file.write(NEW);
    file.commit();
    expect(readFileSync(path, 'utf8')).toBe(NEW);
  });
});

describe('the outbox file', () => {
  it('keeps every delivered answer, by run id, across reopenings', () => {
    const path = join(freshDir(), 'outbox.jsonl');
    new FileOutbox(path).deliver('T01', 'one');
    new FileOutbox(path).deliver('T02', 'other');
    new FileOutbox(path).deliver('T01', 'two\nlines');
    expect(new FileOutbox(path).delivered('T01')).toEqual(['one', 'two\nlines']);
  });
});

describe('the file stores together', () => {
  it('reopen the shop, the step records and the outbox a previous process left', () => {
    const dir = freshDir();
    const scenario = lanternScenario('T01');
    createFileStores(dir, scenario.shop);
    const first = openFileStores(dir);
    first.shop.call('refund', { orderId: 'O-1042', lineId: 'L1', amountCents: 7950 }, null);
    first.workflow.record('T01', 0, '"reply"');
    first.outbox.deliver('T01', 'answer');
    // No close: the process is killed with its handles open; WAL keeps every commit.
    const second = openFileStores(dir);
    expect(second.shop.writeLog()).toHaveLength(1);
    expect(second.workflow.recorded('T01', 0)).toBe('"reply"');
    expect(second.outbox.delivered('T01')).toEqual(['answer']);
    expect(existsSync(storePaths(dir).shop)).toBe(true);
    closeStores(second);
    closeStores(first);
  });
});
