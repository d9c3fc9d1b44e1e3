// A JSON file saved atomically: written to a temp file (journal-write), then renamed over the old
// one (journal-save). A kill between the two leaves the old file whole; a temp file left behind is
// a save that never happened and is removed on load.

import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export class JsonJournal<T> {
  constructor(
    readonly path: string,
    private readonly onEvent: (kind: 'journal-write' | 'journal-save') => void,
  ) {}

  /** The last saved value, or null before the first save. A file that is not JSON throws (never resume from garbage). */
  load(): T | null {
    rmSync(`${this.path}.tmp`, { force: true });
    if (!existsSync(this.path)) return null;
    const text = readFileSync(this.path, 'utf8');
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new Error(`cannot resume from the journal at ${this.path}: not valid JSON (${(error as Error).message})`);
    }
  }

  save(value: T): void {
    writeFileSync(`${this.path}.tmp`, JSON.stringify(value));
    this.onEvent('journal-write');
    renameSync(`${this.path}.tmp`, this.path);
    this.onEvent('journal-save');
  }
}
