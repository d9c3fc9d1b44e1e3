// Durable stores in files, for the real kill tier: what a process killed with SIGKILL leaves on
// disk is exactly what the next process reads. The shop and the workflow's step records are
// SQLite files in WAL mode (a committed transaction survives a process kill); the journal is a
// file saved by writing a temp file and renaming it over the journal (or, broken, written in
// place); the outbox is a file of delivered answers, one JSON line each.
//
// Kills land between events, never inside a call of these stores (the harness kills itself only
// after it has written an event), so a store only has to be whole at its own event boundaries:
// after `write()` (temp file written; or, in place, the journal torn) and after `commit()`.

import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Shop } from './shop.js';
import type { ShopRows } from './scenario.js';
import { SqliteWorkflowStore, type DurableStores, type JournalStore, type JournalWriteMode, type Outbox } from './stores.js';

/**
 * The journal as a file. `rename`: `write()` writes `<file>.tmp`, `commit()` renames it over the
 * journal, so after a kill `load()` reads the old text or the new one; a temp file left by a kill
 * between the two is stale and `load()` removes it. `in-place` (broken): `write()` truncates the
 * journal and writes the first half of the new text's characters, `commit()` writes the rest; a
 * kill in between leaves a torn journal, as MemoryJournal models it, character for character.
 */
export class FileJournal implements JournalStore {
  readonly location: string;
  private readonly tempPath: string;
  private pending: { text: string; fd: number | null; written: number } | null = null;

  constructor(
    readonly path: string,
    private readonly mode: JournalWriteMode = 'rename',
  ) {
    this.location = mode === 'rename' ? path : `${path} (written in place)`;
    this.tempPath = `${path}.tmp`;
  }

  load(): string | null {
    // A temp file here was written by a life killed before its rename: the save never happened.
    if (this.mode === 'rename' && existsSync(this.tempPath)) rmSync(this.tempPath, { force: true });
    return existsSync(this.path) ? readFileSync(this.path, 'utf8') : null;
  }

  write(text: string): void {
    if (this.mode === 'rename') {
      writeFileSync(this.tempPath, text);
      this.pending = { text, fd: null, written: text.length };
      return;
    }
    const fd = openSync(this.path, 'w');
    const half = Math.floor(text.length / 2);
    writeSync(fd, text.slice(0, half));
    this.pending = { text, fd, written: half };
  }

  commit(): void {
    const pending = this.pending;
    // As in MemoryJournal: parallel tool calls save concurrently (A writes, B writes, A renames
    // B's newer text), so B's commit finds its temp file already renamed and has nothing to do.
    if (pending === null) return;
    this.pending = null;
    if (pending.fd === null) {
      renameSync(this.tempPath, this.path);
      return;
    }
    writeSync(pending.fd, pending.text.slice(pending.written));
    closeSync(pending.fd);
  }
}

/** Delivered answers, one JSON line `{"runId", "text"}` each, appended with one write. */
export class FileOutbox implements Outbox {
  constructor(readonly path: string) {}

  delivered(runId: string): string[] {
    return readOutbox(this.path)
      .filter((a) => a.runId === runId)
      .map((a) => a.text);
  }

  deliver(runId: string, text: string): void {
    appendFileSync(this.path, `${JSON.stringify({ runId, text })}\n`);
  }
}

export interface DeliveredAnswer {
  runId: string;
  text: string;
}

/** Reads an outbox file; a missing file holds no answers. */
export function readOutbox(path: string): DeliveredAnswer[] {
  if (!existsSync(path)) return [];
  const answers: DeliveredAnswer[] = [];
  for (const [i, line] of readFileSync(path, 'utf8').split('\n').entries()) {
    if (line === '') continue;
    const parsed = JSON.parse(line) as Partial<DeliveredAnswer>;
    if (typeof parsed.runId !== 'string' || typeof parsed.text !== 'string') throw new Error(`${path}:${i + 1}: expected {"runId": string, "text": string}`);
    answers.push({ runId: parsed.runId, text: parsed.text });
  }
  return answers;
}

/** Where a run's durable stores live inside its folder. */
export interface StorePaths {
  shop: string;
  journal: string;
  workflow: string;
  outbox: string;
}

export function storePaths(dir: string): StorePaths {
  return {
    shop: join(dir, 'shop.sqlite'),
    journal: join(dir, 'journal.json'),
    workflow: join(dir, 'workflow.sqlite'),
    outbox: join(dir, 'outbox.jsonl'),
  };
}

/** Creates the shop file with the scenario's starting rows; the other stores start empty. */
export function createFileStores(dir: string, rows: ShopRows): void {
  mkdirSync(dir, { recursive: true });
  Shop.create(rows, storePaths(dir).shop).close();
}

/** Opens the stores a previous life (or createFileStores) left in `dir`. */
export function openFileStores(dir: string, journalMode: JournalWriteMode = 'rename'): DurableStores {
  const paths = storePaths(dir);
  return {
    shop: Shop.open(paths.shop),
    journal: new FileJournal(paths.journal, journalMode),
    workflow: new SqliteWorkflowStore(paths.workflow),
    outbox: new FileOutbox(paths.outbox),
  };
}
