// LangGraph on bad input: a graph that never reaches a checkpoint on disk, a checkpoint database
// that is not one (not SQLite; SQLite of another application's), a life that crashes, a life that
// hangs. Each is an error the command line reports with exit 2 (never a verdict), names what was
// wrong, and leaves no child running and no temp folder behind. The faults are injected through
// the run's own test hook (LangGraphFaults), on Dana's task.

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BaselineDidNotFinish, SystemInputError } from '../src/harness/engine.js';
import { langGraphConfigNamed } from '../src/harness/engines/langgraph/config.js';
import { langGraphSystem } from '../src/harness/engines/langgraph/engine.js';
import { runLangGraph } from '../src/harness/engines/langgraph/run.js';
import type { LangGraphFaults } from '../src/harness/engines/langgraph/run-spec.js';
import { lanternScenario } from '../src/model/load.js';
import { LifeTimedOut, liveChildCount, onChildSpawned } from '../src/harness/process/processes.js';
import { mustFinish } from '../src/harness/search/search-common.js';

const dana = lanternScenario('T01');
/** Where files given to the run are made: the machine's temp folder, not the one each case watches. */
const OUTSIDE = tmpdir();
const run = (faults: LangGraphFaults, kills: number[] = []) => runLangGraph(dana, langGraphConfigNamed('react/sync')!, 'react/sync', { kills, interleaving: [] }, faults);

let tmp: string;
let before: string | undefined;
const pids: number[] = [];
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Each case runs with a temp folder of its own, so what it leaves behind is its own.
beforeEach(() => {
  before = process.env.TMPDIR;
  tmp = mkdtempSync(join(tmpdir(), 'killpoint-lg-bad-input-'));
  process.env.TMPDIR = tmp;
  pids.length = 0;
  onChildSpawned((pid) => pids.push(pid));
});

afterEach(() => {
  onChildSpawned(null);
  if (before === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = before;
  rmSync(tmp, { recursive: true, force: true });
});

function nothingLeft(): void {
  expect(readdirSync(tmp)).toEqual([]);
  expect(liveChildCount()).toBe(0);
  expect(pids.length).toBeGreaterThan(0);
  expect(pids.filter(alive)).toEqual([]);
}

function outsideFile(name: string, write: (path: string) => void): string {
  const dir = mkdtempSync(join(OUTSIDE, 'killpoint-lg-file-'));
  const path = join(dir, name);
  write(path);
  return path;
}

describe('LangGraph on bad input', () => {
  it('a graph that never reaches a checkpoint on disk (a checkpointer that keeps it in memory): bad input, not a pass', async () => {
    await expect(run({ checkpointer: 'memory' })).rejects.toThrow(SystemInputError);
    await expect(run({ checkpointer: 'memory' })).rejects.toThrow(/T01 langgraph react\/sync: the run without a kill finished without saving a single checkpoint/);
    nothingLeft();
  }, 60_000);

  it('a checkpoint database that is not SQLite: bad input naming the file', async () => {
    const notes = outsideFile('notes.txt', (p) => writeFileSync(p, 'these are notes, not checkpoints\n'));
    try {
      const error = await run({ checkpointsFrom: notes }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SystemInputError);
      expect((error as Error).message).toMatch(/life 0: the life cannot run on its durable state: .*checkpoints\.sqlite: not a LangGraph checkpoint database \(not a SQLite database\)/);
      nothingLeft();
    } finally {
      rmSync(join(notes, '..'), { recursive: true, force: true });
    }
  }, 60_000);

  it("a SQLite database of another application's: bad input naming the tables it has", async () => {
    const orders = outsideFile('orders.sqlite', (p) => {
      const db = new Database(p);
      db.exec('CREATE TABLE orders (id TEXT, total REAL)');
      db.close();
    });
    try {
      await expect(run({ checkpointsFrom: orders })).rejects.toThrow(/not a LangGraph checkpoint database \(no table "checkpoints"; its tables: orders\)/);
      nothingLeft();
    } finally {
      rmSync(join(orders, '..'), { recursive: true, force: true });
    }
  }, 60_000);

  it('a life that crashes in the run without a kill: the baseline did not finish (what every search asks first), with the crash line', async () => {
    const error = await run({ crashAfter: 'tool-start' }).then((baseline) => mustFinish(baseline, langGraphSystem('react/sync')!)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BaselineDidNotFinish);
    expect((error as Error).message).toContain('the LangGraph life crashed (exit 1): Error: the life crashed (a fault injected after tool-start)');
    nothingLeft();
  }, 60_000);

  it('a life that hangs: killed at its time limit (with the whole process group), bad input', async () => {
    process.env.KILLPOINT_LANGGRAPH_LIFE_TIMEOUT_S = '3';
    try {
      const error = await run({ hangAfter: 'model-request' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LifeTimedOut);
      expect((error as Error).message).toMatch(/a life did not end within 3 s; it was killed/);
      nothingLeft();
    } finally {
      delete process.env.KILLPOINT_LANGGRAPH_LIFE_TIMEOUT_S;
    }
  }, 60_000);

  it('the same run without a fault finishes, saving checkpoints (the faults above are what the errors are about)', async () => {
    const outcome = await run({});
    expect(outcome.lives[0]!.end).toBe('finished');
    expect(outcome.lives[0]!.events.some((e) => e.kind === 'checkpoint-saved')).toBe(true);
    nothingLeft();
  }, 60_000);
});
