// A LangGraph thread's later user messages are turns too: an entry `{ "message": TEXT }` of --resume
// is handed to the thread once its run ended, as a chat app sends one, and the run goes on across
// its waits to its end again. A kill after the message was handed and before LangGraph recorded it
// (message[#1]) leaves a recovery that hands it again, once. Each mistake is bad input: exit 2, one
// line. The refund desk of test/fixtures/langgraph-modules/later-message.ts: the person declines
// L1, a later message asks for L2, which is approved, and a last message thanks; run through the
// command line's main. With the full suite: its exploration of every kill point, keyed and unkeyed,
// and message[#1] with the life a process killed with SIGKILL.

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { langGraphKillPoints } from '../src/harness/api/check-module.js';
import { runMain } from './helpers.js';
import { fullSuiteTest } from './suite.js';

const FIXTURES = 'test/fixtures/langgraph-modules';
const DESK = `${FIXTURES}/later-message.ts`;
const ASK_L1 = `${FIXTURES}/refund-l1-input.json`;
const TURNS = `${FIXTURES}/later-message-resume.json`;
const L2 = { message: 'Then please refund line L2 of order A-17.' };
const REFUND_EXAMPLE = 'examples/refund-approval-langgraph';
const check = (...rest: string[]) => runMain(['check', '--langgraph', DESK, '--input', ASK_L1, ...rest]);

const listeners = process.getMaxListeners();
beforeAll(() => void process.setMaxListeners(listeners + 10));
afterAll(() => void process.setMaxListeners(listeners));

describe('later messages in --resume, each mistake bad input: exit 2, one line naming it', () => {
  const cases: [string, string[], RegExp][] = [
    ['a message that falls to a wait', ['--resume', JSON.stringify([L2])], /--resume \[\{"message":"Then please refund line L2 of order A-17\."\}\]: value 1 is a later message, but the run waits at ask#1, for \{"question":"refund A-17\/L1\?"\} \(a message is handed once the run ended/],
    ['an answer left when the run ended with no message next', ['--resume', JSON.stringify([false, L2, true, true])], /: 1 value left when the run ended \(it waited 2 times, 4 values given\)/],
    ['a message for a graph whose state has no messages list', ['--resume', '[true, {"message":"and L2 too"}]'], /--resume \[true, \{"message":"and L2 too"\}\]: value 2 is a later message, but the run's state has no messages list to append it to/],
  ];
  test.each(cases)('%s', async (name, args, message) => {
    const r = name.includes('no messages list')
      ? await runMain(['check', '--langgraph', `${REFUND_EXAMPLE}/src/agent-keyed.ts`, '--input', `${REFUND_EXAMPLE}/input.json`, ...args])
      : await check(...args);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);
});

describe('the run taking a later message', () => {
  test('the kill point message[#1] comes once the run ended, before the waits the message leads to', async () => {
    const points = (await langGraphKillPoints({ module: DESK, inputFile: ASK_L1, resumeFile: TURNS })).map((p) => p.identity);
    expect(points).toEqual(expect.arrayContaining(['resume[ask#1]', 'message[#1]', 'interrupt[ask#2]', 'resume[ask#2]', 'message[#2]']));
    expect(points.indexOf('message[#1]')).toBeGreaterThan(points.indexOf('resume[ask#1]'));
    expect(points.indexOf('interrupt[ask#2]')).toBeGreaterThan(points.indexOf('message[#1]'));
  }, 120_000);

  test('killed once the message was handed and before LangGraph recorded it, the recovery hands it again: L2 refunded once, the answer numbers it message 2', async () => {
    const r = await check('--resume', TURNS, '--schedule', 'message[#1]');
    const out = r.out.join('\n');
    expect(out).toMatch(/life 1 \(the original run\): \d+ events, killed after event \d+\n[\s\S]*message #1: later user message delivered {3}<-- KILL\n/);
    expect(out).toMatch(/life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+message #1: later user message delivered/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  test('killed once the last message was recorded and its run ended, the recovery hands it no second time', async () => {
    const r = await check('--resume', TURNS, '--schedule', 'checkpoint-saved[step 11]');
    const out = r.out.join('\n');
    expect(out).toMatch(/life 2 \(recovery 1\): 0 events, ran to its end/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);

  fullSuiteTest('the same at message[#1] with the life a process killed with SIGKILL', async () => {
    const r = await check('--resume', TURNS, '--tier', 'process', '--schedule', 'message[#1]');
    const out = r.out.join('\n');
    expect(out).toMatch(/message #1: later user message delivered {3}<-- KILL\n\s+life 2 \(recovery 1\): \d+ events, ran to its end\n\s+0\s+message #1: later user message delivered/);
    expect(out).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 300_000);

  fullSuiteTest('keyed, every kill point: exit 0', async () => {
    const r = await check('--resume', TURNS);
    expect(r.out.join('\n')).toContain('every promised check holds');
    expect(r.status).toBe(0);
  }, 300_000);

  fullSuiteTest('unkeyed, L2 is refunded twice at the kill after the refund the later message asked for: exit 1, the minimal counterexample replays', async () => {
    const r = await check('--graph-export', 'createUnkeyedGraph', '--resume', TURNS);
    const out = r.out.join('\n');
    expect(out).toContain('failures: done twice 1');
    expect(out).toMatch(/kill schedule: \d+ \(node-end\[refund\]\)[\s\S]*message #1: later user message delivered[\s\S]*node refund: end {3}<-- KILL/);
    expect(out).toContain('refund A-17/L2 committed twice');
    expect(out).toContain(`replay: npx killpoint check --langgraph ${DESK} --input ${ASK_L1} --resume ${TURNS} --graph-export createUnkeyedGraph --schedule 30`);
    expect(r.status).toBe(1);
  }, 300_000);
});
