// An agent behind the kill protocol that keeps its journal outside KILLPOINT_STATE_DIR (under ~)
// shares it with every run killpoint makes: the second of two runs never killed resumes what the
// first left instead of doing the task. Refused, with the difference and the file named; what the
// runs wrote outside is found in the state folder's parent (exactly) and in the home folder's top
// two levels (by size and time). Once a journal is already there, both runs resume it alike and
// write nothing: the pass then says so.

import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { firstDifference, runNeverKilledTwice } from '../src/harness/engines/external/never-killed-twice.js';
import { filesBesideState, snapshotHome, writtenBetween } from '../src/harness/engines/external/outside-state.js';
import { ProtocolError } from '../src/harness/process/protocol.js';
import { captureConsole } from './helpers.js';

const HOME_JOURNAL_AGENT = join(PROJECT_ROOT, 'test', 'fixtures', 'harness-outside', 'home_journal_agent.py');

const out = captureConsole();
let home: string;
const realHome = process.env.HOME;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'killpoint-outside-home-'));
});
afterEach(() => {
  process.env.HOME = realHome;
  rmSync(home, { recursive: true, force: true });
});

describe('a journal under ~, shared by every run', () => {
  it('the two runs never killed differ: bad input naming the first difference, the file written outside and the replay', async () => {
    process.env.HOME = home;
    const status = await main(['harness', '--concurrency', '2', '--', 'python3', HOME_JOURNAL_AGENT]);
    const text = out.text();
    expect(text).toContain('two runs never killed, each from an empty KILLPOINT_STATE_DIR, differ at event 0: "refund step-1: start" in the first, "answer delivered" in the second');
    expect(text).toContain(`the agent wrote ${join(home, '.agent', 'journal.json')}, outside KILLPOINT_STATE_DIR: keep its durable state in that folder`);
    expect(text).toMatch(new RegExp(`^  replay: npx killpoint harness -- python3 ${HOME_JOURNAL_AGENT.replace(/[.]/g, '\\.')}$`, 'm'));
    expect(text).not.toMatch(/every promised check held/);
    expect(status).toBe(2);
  });

  it('a journal already there (an earlier run left it): the pass says the run never killed wrote nothing', async () => {
    process.env.HOME = home;
    mkdirSync(join(home, '.agent'));
    writeFileSync(join(home, '.agent', 'journal.json'), JSON.stringify({ runId: 'py-dana', done: ['refund'] }));
    const status = await main(['harness', '--concurrency', '2', '--', 'python3', HOME_JOURNAL_AGENT]);
    expect(out.text()).toContain('note: the run never killed committed no write (write_log is empty), so no kill point could repeat or lose one');
    expect(status).toBe(0);
  });

  it('an agent whose run never killed writes passes with no such note', async () => {
    const status = await main(['harness', '--concurrency', '2', '--', 'python3', join(PROJECT_ROOT, 'agents', 'python', 'refund_agent.py'), '--keys']);
    expect(out.text()).toMatch(/every promised check held/);
    expect(out.text()).not.toMatch(/note:/);
    expect(status).toBe(0);
  });
});

/** A run never killed with these events, writes and answer. */
function outcome(kinds: string[], writes: string[], answer: string): RunOutcome {
  return {
    scenarioId: 'harness',
    strategy: 'agent',
    schedule: { kills: [], interleaving: [] },
    lives: [{ events: kinds.map((kind, index) => ({ index, kind }) as never), end: 'finished', killedAfter: null, error: null, errorKind: null }],
    picksTaken: [],
    pickWidths: [],
    delivered: [answer],
    writes: writes.map((target) => ({ kind: 'refund', target, args: '{}', key: null })),
    refusals: [],
    shop: {},
    finalConversation: null,
  };
}

describe('two runs never killed, compared', () => {
  it('the same events, writes and answer: no difference; each of them differing: named', () => {
    const run = outcome(['look', 'answer-delivered'], ['O-1/L1'], 'Refunded.');
    expect(firstDifference(run, outcome(['look', 'answer-delivered'], ['O-1/L1'], 'Refunded.'))).toBeNull();
    expect(firstDifference(run, outcome(['answer-delivered'], ['O-1/L1'], 'Refunded.'))).toBe('at event 0: "look" in the first, "answer delivered" in the second');
    expect(firstDifference(run, outcome(['look', 'answer-delivered'], [], 'Refunded.'))).toBe('at write 0: refund O-1/L1 {} in the first, (none) in the second');
    expect(firstDifference(run, outcome(['look', 'answer-delivered'], ['O-1/L1'], 'Refunded again.'))).toBe('in their answer: "Refunded." and "Refunded again."');
  });

  it("a file left in the state folder's parent is named; killpoint's own files there are not", async () => {
    const runDir = join(home, 'run');
    mkdirSync(join(runDir, 'state'), { recursive: true });
    for (const own of ['events-0.jsonl', 'result-0.json']) writeFileSync(join(runDir, own), '');
    expect(filesBesideState(join(runDir, 'state'))).toEqual([]);
    writeFileSync(join(runDir, 'journal.json'), '{}');
    let runs = 0;
    const twice = runNeverKilledTwice('agent', async (besideState) => {
      besideState(join(runDir, 'state'));
      return runs++ === 0 ? outcome(['look'], [], 'Done.') : outcome(['answer-delivered'], [], 'Done.');
    });
    await expect(twice).rejects.toThrow(ProtocolError);
    await expect(twice).rejects.toThrow('the agent wrote $KILLPOINT_STATE_DIR/../journal.json, outside KILLPOINT_STATE_DIR');
  });

  it('a second run refused for breaking the protocol (no answer, as a resumed task may give) differs by that', async () => {
    let runs = 0;
    const twice = runNeverKilledTwice('agent', async () => {
      if (runs++ === 0) return outcome(['look'], [], 'Done.');
      throw new ProtocolError('agent: the run without a kill exited 0 but delivered no answer (outbox.jsonl)');
    });
    await expect(twice).rejects.toThrow('two runs never killed, each from an empty KILLPOINT_STATE_DIR, differ in how they ended: the first finished, the second was refused (the run without a kill exited 0 but delivered no answer (outbox.jsonl));');
  });

  it('a run that does not repeat itself with nothing written outside: the difference, and what may cause it', async () => {
    let runs = 0;
    const twice = runNeverKilledTwice('agent', async () => (runs++ === 0 ? outcome(['look'], [], 'Done.') : outcome(['look'], [], 'Done at 10:02.')));
    await expect(twice).rejects.toThrow(/differ in their answer: "Done\." and "Done at 10:02\."; an agent that keeps durable state outside KILLPOINT_STATE_DIR \(a journal under ~, say\) or whose runs differ/);
  });
});

describe("the home folder's snapshot", () => {
  it('names files created or changed at its top two levels, and new folders with nothing named inside; a folder that only changed is not named', () => {
    mkdirSync(join(home, '.cache', 'pip'), { recursive: true });
    writeFileSync(join(home, '.profile'), 'a');
    writeFileSync(join(home, '.cache', 'index'), 'a');
    const before = snapshotHome(home)!;
    expect(writtenBetween(before, snapshotHome(home)!)).toEqual([]);
    writeFileSync(join(home, '.profile'), 'ab'); // changed
    mkdirSync(join(home, '.agent'));
    writeFileSync(join(home, '.agent', 'journal.json'), '{}'); // created, in a folder created
    mkdirSync(join(home, '.empty')); // a folder created, nothing in it
    writeFileSync(join(home, '.cache', 'pip', 'deep'), 'a'); // below the snapshot: changes the time of .cache/pip only
    utimesSync(join(home, '.cache', 'index'), new Date(0), new Date(0)); // same size, another time
    expect(writtenBetween(before, snapshotHome(home)!)).toEqual([join(home, '.agent', 'journal.json'), join(home, '.cache', 'index'), join(home, '.empty'), join(home, '.profile')]);
  });

  it('no home to look at: nothing to snapshot', () => {
    expect(snapshotHome('/')).toBeNull();
    expect(snapshotHome(join(home, 'missing'))).toBeNull();
  });
});
