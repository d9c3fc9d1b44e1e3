// The chapter's table, reproduced by killpoint's own runs of the bundled Lantern tasks. Every
// figure below is computed by the experiment; the random ones come from the committed seed.

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../src/harness/cli/main.js';
import { chosenKillPoint, EXPERIMENT_SEED, MOMENTS, rowOf, runExperiment, runsOf, type ExperimentResult, type TaskRun } from '../src/harness/chapter/experiment.js';
import { simulate } from '../src/harness/engines/scripted/simulate.js';
import { STRATEGY_NAMES } from '../src/harness/engines/scripted/strategies.js';
import { judge, modelCallsStarted } from '../src/harness/check/verdict.js';
import { lanternScenarios } from '../src/model/load.js';

let result: ExperimentResult;
beforeAll(() => {
  result = runExperiment(lanternScenarios());
});

const SAVING = ['journal', 'journal+keys', 'workflow', 'workflow+keys'] as const;
const ids = (runs: TaskRun[], keep: (r: TaskRun) => boolean) => runs.filter(keep).map((r) => r.scenarioId);

describe('the tasks', () => {
  it('are 14, 12 of which commit a write, with 75 model calls in their baselines', () => {
    const baselines = [...result.baselines.values()].map((b) => b.get('journal')!);
    expect(baselines).toHaveLength(14);
    expect(baselines.filter((b) => b.writes.length > 0)).toHaveLength(12);
    expect(baselines.reduce((n, b) => n + modelCallsStarted(b), 0)).toBe(75);
  });

  it("Dana's task takes six model calls and five tools: four reads, then the $79.50 refund", () => {
    const events = result.baselines.get('T01')!.get('journal')!.lives[0]!.events;
    expect(events.filter((e) => e.kind === 'model-request')).toHaveLength(6);
    expect(events.filter((e) => e.kind === 'tool-start').map((e) => e.tool)).toEqual(['find_customer', 'list_orders', 'get_order', 'list_refunds', 'refund']);
  });

  it('make 420 runs: 14 tasks x 5 strategies x (3 chosen moments + 3 random kills)', () => {
    expect(result.runs).toHaveLength(420);
    for (const moment of MOMENTS) for (const s of STRATEGY_NAMES) expect(rowOf(result, moment, s).runs).toBe(moment === 'random' ? 42 : 14);
  });
});

describe('killed during the first reply', () => {
  it.each(STRATEGY_NAMES)('%s: nothing in the shop yet, 14 of 14 same answer, no extra write', (strategy) => {
    for (const run of runsOf(result, 'first-reply', strategy)) {
      const events = result.baselines.get(run.scenarioId)!.get(strategy)!.lives[0]!.events;
      expect(events.slice(0, run.killPoint! + 1).some((e) => e.kind === 'shop-commit')).toBe(false);
    }
    expect(rowOf(result, 'first-reply', strategy)).toMatchObject({ killed: 14, sameAnswer: 14, extraWrites: 0, doneTwice: 0, refused: 0 });
  });
});

describe('killed during the answer', () => {
  it('restart: 75 model calls redone, 5 extra writes (Dana among them), same answer 2 of 14', () => {
    const row = rowOf(result, 'answer', 'restart');
    expect(row).toMatchObject({ modelCallsRedone: 75, extraWrites: 5, sameAnswer: 2, killed: 14 });
    const runs = runsOf(result, 'answer', 'restart');
    expect(runs.find((r) => r.scenarioId === 'T01')!.verdict.doneTwice).toHaveLength(1);
    expect(ids(runs, (r) => r.verdict.sameAnswer)).toEqual(['T05', 'T06']); // the two that only read
  });

  it.each(SAVING)('%s: one model call redone per run, 14 of 14 same, no extra write', (strategy) => {
    for (const run of runsOf(result, 'answer', strategy)) expect(run.verdict.modelCallsRedone).toBe(1);
    expect(rowOf(result, 'answer', strategy)).toMatchObject({ modelCallsRedone: 14, sameAnswer: 14, extraWrites: 0 });
  });

  it('no strategy delivers half an answer; the customer sees the answer start over once', () => {
    for (const s of STRATEGY_NAMES) {
      for (const run of runsOf(result, 'answer', s)) {
        expect(run.verdict.partialAnswerDelivered).toBe(false);
        expect(run.verdict.answersDelivered).toBe(1);
        expect(run.verdict.answerRestarts).toBe(1);
      }
    }
  });
});

describe('killed right after a write (committed, result not yet back)', () => {
  it.each(['journal', 'workflow'] as const)('%s: all 12 writes sent again; 2 done twice, 10 refused, 4 different writes, 6 extra, same answer 1 of 12', (strategy) => {
    const row = rowOf(result, 'after-write', strategy);
    expect(row).toMatchObject({ killed: 12, sentAgain: 12, doneTwice: 2, refused: 10, differentWrites: 4, extraWrites: 6, sameAnswer: 1 });
    expect(row.refusedBy).toEqual({ 'over-refund': 7, 'already-cancelled': 3 });
    expect(row.differentBy).toEqual({ hand_off: 3, send_email: 1 });
    const runs = runsOf(result, 'after-write', strategy);
    expect(runs.flatMap((r) => r.verdict.doneTwice.map((w) => `${r.scenarioId} ${w.kind} ${w.target}`)))
      .toEqual(['T01 refund O-1042/L1', 'T04 change_address C-104']); // Dana's second $79.50, Owen's address twice
    expect(ids(runs, (r) => r.killPoint !== null && r.verdict.sameAnswer)).toEqual(['T04']); // only Owen's
    expect(ids(runs, (r) => r.killPoint === null)).toEqual(['T05', 'T06']); // no write: the baseline
  });

  it("Grace's repeat is refused twice; she is handed to a person and told the refund is blocked", () => {
    const scenario = lanternScenarios().find((s) => s.id === 'T02')!;
    const run = runsOf(result, 'after-write', 'journal').find((r) => r.scenarioId === 'T02')!;
    const outcome = simulate(scenario, 'journal', { kills: [run.killPoint!], interleaving: [] });
    expect(outcome.refusals.map((r) => r.reason)).toEqual(['over-refund', 'over-refund']);
    expect(run.verdict.differentWrites.map((w) => w.kind)).toEqual(['hand_off']);
    expect(run.verdict.answer).toContain('the refund is blocked');
  });

  it('workflow matches journal task by task', () => {
    const summary = (r: TaskRun) => {
      const v = r.verdict;
      return { task: r.scenarioId, doneTwice: v.doneTwice, differentWrites: v.differentWrites, refused: v.refused, extra: v.extraWrites, answer: v.answer };
    };
    expect(runsOf(result, 'after-write', 'workflow').map(summary)).toEqual(runsOf(result, 'after-write', 'journal').map(summary));
  });

  it.each(['journal+keys', 'workflow+keys'] as const)('%s: 0 done twice, 12 of 12 same answer, no model call redone', (strategy) => {
    expect(rowOf(result, 'after-write', strategy)).toMatchObject({ killed: 12, sentAgain: 12, doneTwice: 0, extraWrites: 0, refused: 0, sameAnswer: 12, modelCallsRedone: 0 });
  });

  it('keys from a fresh random id (broken) do not help: the same two writes are done twice', () => {
    const doneTwice: string[] = [];
    for (const scenario of lanternScenarios()) {
      const baseline = simulate(scenario, 'journal+random-keys', { kills: [], interleaving: [] });
      const kill = chosenKillPoint('after-write', baseline.lives[0]!.events);
      if (kill === null) continue;
      const v = judge(scenario, simulate(scenario, 'journal+random-keys', { kills: [kill], interleaving: [] }), baseline);
      if (v.doneTwice.length > 0) doneTwice.push(scenario.id);
    }
    expect(doneTwice).toEqual(['T01', 'T04']);
  });
});

describe(`killed at random times (seed "${EXPERIMENT_SEED}")`, () => {
  it.each(SAVING)('%s: no write repeated, 42 of 42 same answer', (strategy) => {
    expect(rowOf(result, 'random', strategy)).toMatchObject({ killed: 42, sentAgain: 0, extraWrites: 0, sameAnswer: 42 });
  });

  it('restart makes extra writes and loses answers: 3 extra writes, 32 of 42 same (the chapter: 3 and 32)', () => {
    const row = rowOf(result, 'random', 'restart');
    expect(row).toMatchObject({ extraWrites: 3, sameAnswer: 32 });
  });

  it('every kill lands while waiting on the model or a tool, 16 of them inside a write tool before its commit; none in the gap', () => {
    const landed = { waiting: 0, writeBeforeCommit: 0, gap: 0, runs: 0 };
    for (const s of STRATEGY_NAMES) {
      const l = rowOf(result, 'random', s).landed!;
      landed.waiting += l.waiting;
      landed.writeBeforeCommit += l.writeBeforeCommit;
      landed.gap += l.gap;
      landed.runs += 42;
    }
    // The chapter: most (176 of 210) waiting, 8 inside the refund tool before its commit, none in the gap.
    // Our virtual clock gives the agent's own work no time, so every kill lands waiting.
    expect(landed).toEqual({ waiting: 210, writeBeforeCommit: 16, gap: 0, runs: 210 });
  });

  it('each random kill is a uniform time in 5%..95% of its baseline, mapped to the event in progress', () => {
    for (const run of result.runs.filter((r) => r.moment === 'random')) {
      const events = result.baselines.get(run.scenarioId)!.get(run.strategy)!.lives[0]!.events;
      const durationMs = events[events.length - 1]!.atMs;
      expect(run.killAtMs!).toBeGreaterThanOrEqual(0.05 * durationMs);
      expect(run.killAtMs!).toBeLessThanOrEqual(0.95 * durationMs);
      expect(events[run.killPoint! + 1]!.atMs).toBeGreaterThan(run.killAtMs!);
      if (run.killPoint! >= 0) expect(events[run.killPoint!]!.atMs).toBeLessThanOrEqual(run.killAtMs!);
    }
  });
});

describe('killpoint experiment', () => {
  async function capture(args: string[]): Promise<{ status: number; out: string }> {
    let out = '';
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out += String(chunk);
      return true;
    });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      return { status: await main(['experiment', ...args]), out };
    } finally {
      write.mockRestore();
      error.mockRestore();
    }
  }

  it('prints the table and Dana\'s strip, the same bytes every time', async () => {
    const first = await capture([]);
    const second = await capture([]);
    expect(first.status).toBe(0);
    expect(second.out).toBe(first.out);
    expect(first.out).toMatch(/answer\s+restart\s+14\s+75\s+5\s+2\s+6\s+3\s+2\/14/);
    expect(first.out).toMatch(/after-write\s+journal\s+14\s+7\s+6\s+2\s+10\s+4\s+1\/12/);
    expect(first.out).toContain("T01 (Dana's task: Dana Okafor asks for a refund for one of two sleeping pads that arrived torn) under journal");
    // A reader who has not read the chapter is told what "the chapter" and "Lantern" are.
    expect(first.out).toMatch(/^ {2}Lantern: Lantern Outfitters, a made-up outdoor shop/m);
    expect(first.out).toMatch(/^ {2}the chapter: the book chapter/m);
  });

  it('--json gives a row per moment and strategy and a verdict per run', async () => {
    const { status, out } = await capture(['--json']);
    expect(status).toBe(0);
    const parsed = JSON.parse(out) as { rows: Record<string, unknown>[]; tasks: Record<string, unknown>[] };
    expect(parsed.rows.map((r) => `${r.moment} ${r.strategy}`)).toEqual(MOMENTS.flatMap((m) => STRATEGY_NAMES.map((s) => `${m} ${s}`)));
    for (const row of parsed.rows) {
      for (const key of ['runs', 'modelCallsRedone', 'extraWrites', 'doneTwice', 'refused', 'differentWrites', 'sameAnswer']) expect(typeof row[key]).toBe('number');
    }
    expect(parsed.tasks).toHaveLength(420);
    expect(parsed.tasks[0]).toMatchObject({ task: 'T01', moment: 'first-reply', strategy: 'restart' });
  });

  it('refuses an unknown option with exit status 2', async () => {
    expect((await capture(['--csv'])).status).toBe(2);
  });
});
