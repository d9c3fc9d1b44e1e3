// A state folder read in one step, compared and written out (src/harness/process/folder-files.ts):
// an in-process life copies its folder after an event only when a byte of it changed, so the
// comparison must see every change a kill would leave: a byte, a file, a folder. A read that meets
// a file gone since it was listed (a rename of the life's own landing meanwhile) is made again. A
// copy of a folder is that folder, a link in it included.

import { lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFolder, readFolder, sameFiles, whileFilesSettle, writeFolder } from '../src/harness/process/folder-files.js';

const root = mkdtempSync(join(tmpdir(), 'folder-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>, dirs: string[] = []): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const d of dirs) mkdirSync(join(dir, d), { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('a state folder in memory', () => {
  const base = { 'shop.sqlite': 'rows', 'journal/0001.json': '{"step":1}' };

  it('is the same reading as an identical folder, and differs by one byte, one more file or one more empty folder', () => {
    const a = readFolder(folder('a', base));
    expect(sameFiles(a, readFolder(folder('b', base)))).toBe(true);
    expect(sameFiles(a, readFolder(folder('c', { ...base, 'shop.sqlite': 'rowz' })))).toBe(false);
    expect(sameFiles(a, readFolder(folder('d', { ...base, 'outbox.jsonl': '' })))).toBe(false);
    expect(sameFiles(a, readFolder(folder('e', base, ['locks'])))).toBe(false);
  });

  it('written out, reads back as the folder it was read from', () => {
    const read = readFolder(folder('f', base, ['empty/inner']));
    const copy = join(root, 'copy-of-f');
    writeFolder(copy, read);
    const again = readFolder(copy);
    expect(sameFiles(read, again)).toBe(true);
    expect(again.dirs).toEqual(['empty', 'empty/inner', 'journal']);
    expect(again.files.get('journal/0001.json')!.toString()).toBe('{"step":1}');
  });
});

describe('a state folder copied', () => {
  it('is the same folder: every file byte for byte, every folder, empty ones too', () => {
    const from = folder('g', { 'shop.sqlite': 'rows', 'data/ledger/0001.json': '{"refund":1}' }, ['empty/inner']);
    const to = join(root, 'copy-of-g');
    copyFolder(from, to);
    expect(sameFiles(readFolder(to), readFolder(from))).toBe(true);
  });

  it("keeps a link in an agent's data folder the link it was (a relative one pointing into the copy)", () => {
    const from = folder('h', { 'data/target.txt': 'x' });
    symlinkSync('target.txt', join(from, 'data', 'link'));
    const to = join(root, 'copy-of-h');
    copyFolder(from, to);
    expect(lstatSync(join(to, 'data', 'link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(to, 'data', 'link'))).toBe('target.txt');
  });
});

describe('a read of a folder that changes under it', () => {
  const gone = () => Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' });

  it('is made again, whole, while a file it listed is gone when it is read', () => {
    let reads = 0;
    expect(whileFilesSettle(() => {
      reads += 1;
      if (reads < 3) throw gone();
      return 'one state of the folder';
    })).toBe('one state of the folder');
    expect(reads).toBe(3);
  });

  it('gives up after a bounded number of tries, and never retries another error', () => {
    let reads = 0;
    expect(() => whileFilesSettle(() => {
      reads += 1;
      throw gone();
    })).toThrow(/ENOENT/);
    expect(reads).toBe(20);
    reads = 0;
    expect(() => whileFilesSettle(() => {
      reads += 1;
      throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    })).toThrow(/EACCES/);
    expect(reads).toBe(1);
  });
});
