// A user's graph that waits for a person (interrupt()), checked across its waits: --resume gives
// the person's answers, one per wait in order; every life of every kill schedule hands the same
// answer to the same wait, a recovery started while the run waits is handed the turn, and the
// kill points at a wait are named by it (interrupt[ask#1], resume[ask#1]). Each mistake in the
// answers is bad input: exit 2, one line. The graphs are examples/refund-approval-langgraph's,
// run in this process through the command line's main.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { checkLangGraph, langGraphKillPoints } from '../src/harness/api/check-module.js';
import { killpointTests, type TestApi } from '../src/vitest/index.js';
import { runMain } from './helpers.js';

const EXAMPLE = 'examples/refund-approval-langgraph';
const KEYED = `${EXAMPLE}/src/agent-keyed.ts`;
const NOTE_WHEN_ASKING = `${EXAMPLE}/src/agent-note-when-asking.ts`;
const ONE_LINE = `${EXAMPLE}/input.json`;
const TWO_LINES = `${EXAMPLE}/input-two.json`;

const listeners = process.getMaxListeners();
beforeAll(() => void process.setMaxListeners(listeners + 10));
afterAll(() => void process.setMaxListeners(listeners));

describe('the answers --resume gives, each mistake bad input: exit 2, one line naming it', () => {
  const cases: [string, string[], RegExp][] = [
    ['no --resume for a graph that waits, naming what it asks', ['--input', ONE_LINE], /the run waits at ask#1, for \{"question":"refund 42\.00 on A-17\/L1\?"\}: give its answers with --resume values\.json/],
    ['a wait with no value left, naming what it asks', ['--input', TWO_LINES, '--resume', '[true]'], /the run waits at ask#2, for \{"question":"refund 18\.00 on A-17\/L2\?"\}, with no value left in --resume \[true\] \(1 given/],
    ['values left when the run ended', ['--input', ONE_LINE, '--resume', '[true, "decline"]'], /--resume \[true, "decline"\]: 1 value left when the run ended \(it waited 1 time, 2 values given\)/],
    ['a value for another place than the wait it falls to', ['--input', ONE_LINE, '--resume', '[{"to":"review","value":true}]'], /--resume \[\{"to":"review","value":true\}\]: value 1 is for "review", but the run's wait 1 is at "ask" \(ask#1, for \{"question":"refund 42\.00 on A-17\/L1\?"\}\)/],
    ['a value for a place the run never waited on', ['--input', ONE_LINE, '--resume', '[{"to":"ask","value":true},{"to":"refund-desk","value":1}]'], /: 1 value left when the run ended \(it waited 1 time, 2 values given; left for "refund-desk", never waited on\)/],
    ['a file that is not there', ['--input', ONE_LINE, '--resume', `${EXAMPLE}/missing.json`], /--resume examples\/refund-approval-langgraph\/missing\.json: cannot read it \(ENOENT\)/],
    ['a file that is not JSON', ['--input', ONE_LINE, '--resume', `${EXAMPLE}/src/ledger.ts`], /--resume \S+ledger\.ts: not JSON \(expected a JSON list with one value per wait/],
    ['JSON that is not a list', ['--input', ONE_LINE, '--resume', ONE_LINE], /--resume \S+input\.json: expected a JSON list with one value per wait of the run, in order, got an object/],
  ];
  test.each(cases)('%s', async (_name, args, message) => {
    const r = await runMain(['check', '--langgraph', KEYED, ...args]);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);

  test('an engine that cannot see its waits refuses --resume, naming the engines that take it', async () => {
    const r = await runMain(['check', '--mastra', 'examples/support-agent-mastra/src/workflow.ts', '--input', 'examples/support-agent-mastra/input.json', '--resume', '[true]']);
    // The engines that take --resume, in the registry's order: LangGraph's first, the others as they come.
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(/^killpoint check: --resume: --mastra cannot be given turns: killpoint does not see where a Mastra workflow waits \(--resume is for --langgraph \(interrupt\(\)\), /);
    for (const engine of ['--dbos (DBOS.recv())', '--vercel-workflow (createHook())', '--restate (ctx.awakeable()']) expect(stderr).toContain(engine);
    expect(r.status).toBe(2);
  });
});

describe('lives across the waits', () => {
  test('the kill points at a wait are named by it: interrupt[ask#1] once it is saved, resume[ask#1] once the answer is handed over', async () => {
    const points = (await langGraphKillPoints({ module: KEYED, inputFile: TWO_LINES, resume: ['approve', 'decline'] })).map((p) => p.identity);
    expect(points).toEqual(expect.arrayContaining(['interrupt[ask#1]', 'resume[ask#1]', 'interrupt[ask#2]', 'resume[ask#2]']));
    expect(points.indexOf('resume[ask#1]')).toBe(points.indexOf('interrupt[ask#1]') + 1);
  }, 120_000);

  test('killed while it waits, the recovery finds it waiting and is handed the answer of that wait, not the first one', async () => {
    const r = await runMain(['check', '--langgraph', KEYED, '--input', TWO_LINES, '--resume', `${EXAMPLE}/resume-two.json`, '--schedule', 'interrupt[ask#2]']);
    const out = r.out.join('\n');
    // The recovery's first event hands ask#2 its answer ("decline"): L2 is not refunded, as in the run never killed.
    expect(out).toMatch(/life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+resume ask#2: turn delivered/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('killed after the answer was handed over and before LangGraph recorded it, the recovery is handed the same answer again', async () => {
    const r = await runMain(['check', '--langgraph', KEYED, '--input', TWO_LINES, '--resume', `${EXAMPLE}/resume-two.json`, '--schedule', 'resume[ask#1]']);
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+resume ask#1: turn delivered/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('without keys, the refund after the approval is done twice at the commit after the resume: exit 1; kept with --save, the entry names --resume and replays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-waits-corpus-'));
    try {
      const r = await runMain(['check', '--langgraph', `${EXAMPLE}/src/agent.ts`, '--input', ONE_LINE, '--resume', `${EXAMPLE}/resume.json`, '--save', dir]);
      const out = r.out.join('\n');
      expect(out).toMatch(/kill schedule: 17 \(node-end\[refund\]\)/);
      expect(out).toMatch(/resume ask#1: turn delivered[\s\S]*node refund: end {3}<-- KILL/);
      expect(out).toContain('refund A-17/L1 committed twice');
      expect(out).toContain(`replay: npx killpoint check --langgraph ${EXAMPLE}/src/agent.ts --input ${ONE_LINE} --resume ${EXAMPLE}/resume.json --schedule 17`);
      expect(r.status).toBe(1);
      const entry = /kept as a corpus entry: (\S+\.json)/.exec(out)?.[1];
      expect(JSON.parse(readFileSync(entry!, 'utf8'))).toMatchObject({ strategy: `${EXAMPLE}/src/agent.ts --input ${ONE_LINE} --resume ${EXAMPLE}/resume.json`, schedule: { killAt: ['node-end[refund]'] } });
      const replay = await runMain(['check', entry!]);
      expect(replay.out.join('\n')).toContain('replays as expected');
      expect(replay.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  test('two questions answered "approve" then "decline", every kill point: exit 0, from the API with resume as a value', async () => {
    const check = await checkLangGraph({ module: KEYED, inputFile: TWO_LINES, resume: ['approve', 'decline'] });
    expect(check.report).toContain('--resume \'["approve","decline"]\'');
    expect(check.ok).toBe(true);
  }, 300_000);
});

describe('done twice without any kill: the node that asks runs again when resumed', () => {
  test('an email sent in the node that asks, before it waits, goes twice in the run never killed: exit 1, named apart from the kill findings, with both writes', async () => {
    const r = await runMain(['check', '--langgraph', NOTE_WHEN_ASKING, '--input', ONE_LINE, '--resume', '[true]', '--schedule', '-1']);
    const out = r.out.join('\n');
    expect(out).toContain('holds at the kill, but its run never killed does an effect twice (below)');
    expect(out).toContain('what differs from the baseline:\n    nothing\n  done twice without any kill: ask runs again when resumed\n');
    expect(out).toContain('    effect 1, before the run waited at ask#1: email dana@example.com {"subject":"we are looking at it"}\n    effect 2, after ask#1 was answered: email dana@example.com {"subject":"we are looking at it"} again');
    expect(r.status).toBe(1);
  }, 120_000);

  test('the exploration says it once, beside the kill findings; --json and --html carry it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-waits-html-'));
    try {
      const html = join(dir, 'report.html');
      const r = await runMain(['check', '--langgraph', NOTE_WHEN_ASKING, '--input', ONE_LINE, '--resume', '[true]', '--json', '--html', html]);
      const [result] = JSON.parse(r.out.join('\n')) as { ok: boolean; repeatsWithoutKill: { finding: string; wait: string; effects: number[] }[] }[];
      expect(result!.repeatsWithoutKill).toEqual([expect.objectContaining({ finding: 'done twice without any kill: ask runs again when resumed', wait: 'ask#1', effects: [1, 2] })]);
      expect(result!.ok).toBe(false);
      expect(r.status).toBe(1);
      const page = readFileSync(html, 'utf8');
      expect(page).toContain('done twice without any kill</span>');
      expect(page).toContain('<b>done twice without any kill: ask runs again when resumed</b><br>effect 1, before the run waited at ask#1: email dana@example.com');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);

  test('the keyed graph, which emails only once the answer came, is not found', async () => {
    const r = await runMain(['check', '--langgraph', KEYED, '--input', ONE_LINE, '--resume', '[true]', '--schedule', '-1']);
    expect(r.out.join('\n')).not.toContain('without any kill');
    expect(r.status).toBe(0);
  }, 120_000);
});

test('killpointTests with resume: [true] declares one test, which passes', async () => {
  const declared: { name: string; body: () => Promise<void> }[] = [];
  const api: TestApi = { describe: (_name, body) => body(), test: (name, body) => void declared.push({ name, body }) };
  killpointTests('refund approval', { langgraph: KEYED, inputFile: ONE_LINE, resume: [true] }, api);
  expect(declared.map((t) => t.name)).toEqual(['agent-keyed.ts: survives every kill point, up to 1 kill (with seed=1)']);
  await declared[0]!.body();
}, 300_000);
