// A user's own LangGraph graph, checked unchanged: the module builds the graph with killpoint's
// checkpointer and reads back its effects; killpoint runs it in child processes, kills them at
// the graph's own moments and judges each recovery. Each set-up killpoint cannot check is bad
// input: exit 2 and one line naming the cause.
//
// Most cases drive the command line in this process (runMain: the same main, its exit status and
// what it prints), which skips a node start and a LangChain load per case; a user's graph runs in
// killpoint's own process by default, so its lives run here just as in the binary. The binary is
// spawned where the case needs another folder (the support agent's) and once for bad input, which
// keeps its own exit status and single stderr line proven end to end.

import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { checkLangGraph } from '../src/harness/api/check-module.js';
import { PROJECT_ROOT } from '../src/model/load.js';
import { runMain } from './helpers.js';

const EXAMPLE = join(PROJECT_ROOT, 'examples', 'support-agent-langgraph');
const FIXTURES = 'test/fixtures/langgraph-modules';

// Each user module checked in this process is bundled once, and each bundle adds one exit listener
// that removes its file: a dozen here, by design, not a leak for Node to warn about.
const listeners = process.getMaxListeners();
beforeAll(() => void process.setMaxListeners(listeners + 20));
afterAll(() => void process.setMaxListeners(listeners));

function killpoint(args: string[], cwd = PROJECT_ROOT) {
  return spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'killpoint.mjs'), ...args], { cwd, encoding: 'utf8', timeout: 300_000 });
}

// Spawned: these run from the example's own folder (its node_modules, and the relative paths the
// replay line names), and main takes the process's folder as it is.
describe("the support agent of one's own", () => {
  test('without keys, a kill right after the refund returned makes the recovery refund again: exit 1, with the replay', () => {
    const r = killpoint(['check', '--langgraph', 'src/agent.ts', '--input', 'input.json', '--schedule', 'tool-result[call_1_refund]'], EXAMPLE);
    expect(r.stdout).toContain('refund call_1_refund: result   <-- KILL');
    expect(r.stdout).toContain('refund O-7/L1 committed twice');
    expect(r.stdout).toContain('replay: npx killpoint check --langgraph src/agent.ts --input input.json --schedule 11');
    expect(r.status).toBe(1);
  }, 120_000);

  test('with keys (thread id + tool call id) the same kill is harmless: exit 0', () => {
    const r = killpoint(['check', '--langgraph', 'src/agent-keyed.ts', '--input', 'input.json', '--schedule', 'tool-result[call_1_refund]'], EXAMPLE);
    expect(r.stdout).toContain('what differs from the baseline:\n    nothing');
    expect(r.status).toBe(0);
  }, 120_000);
});

test("a write in a node, outside any tool, is found at its minimal kill point: the node's end, before its update is saved", async () => {
  const check = await checkLangGraph({ module: `${FIXTURES}/node-write.ts`, input: {} });
  expect(check.ok).toBe(false);
  expect(check.minimal?.killAt).toEqual(['node-end[work]']);
  expect(check.minimal?.differences[0]).toBe('ping world committed twice ({"n":1})');
  expect(check.minimal?.replay).toBe(`npx killpoint check --langgraph ${FIXTURES}/node-write.ts --input '{}' --schedule 4`);
}, 300_000);

test('a tool that calls another tool (an agent used as a tool) runs through: the inner call does not wait at the gate its caller holds', async () => {
  const r = await runMain(['check', '--langgraph', `${FIXTURES}/nested-tool.ts`, '--input', '{}', '--schedule', 'tool-result[inner#1]']);
  expect(r.out.join('\n')).toMatch(/outer outer#1: start[\s\S]*inner inner#1: start[\s\S]*inner inner#1: result {3}<-- KILL/);
  expect(r.status).toBe(1); // the ping repeats: the kill lands between the inner tool's write and any save
}, 120_000);

describe('a graph that ends by calling a `Done` tool nothing answers, in its run never killed too', () => {
  const args = ['check', '--langgraph', `${FIXTURES}/done-tool.ts`, '--input', `${FIXTURES}/messages-input.json`];
  const problem = 'message 3: tool call call_2_done has no result before message 4';

  test('keyed, it passes: the open call is noted once (text and --json), not charged at every kill point', async () => {
    const text = await runMain(args);
    expect(text.status, text.out.join('\n')).toBe(0);
    expect(text.out.join('\n')).toContain(`note: the run never killed has this conversation problem itself (${problem}); no recovery is charged with it`);
    // A reader that looks for the verdict's words finds them only among the checks promised.
    expect(text.out.join('\n').split('\n').filter((l) => /invalid conversation/.test(l) && !/^\s*promised:/.test(l))).toEqual([]);
    expect(text.out.join('\n')).toContain('failures: none');
    const json = await runMain([...args, '--json']);
    expect(json.status).toBe(0);
    expect(JSON.parse(json.out.join('\n'))[0]).toMatchObject({ ok: true, baselineConversationProblem: problem, failures: { 'invalid-conversation': 0 } });
  }, 120_000);

  test('unkeyed, its email is done twice, and nothing else', async () => {
    const check = await checkLangGraph({ module: `${FIXTURES}/done-tool.ts`, graphExport: 'createUnkeyedGraph', inputFile: `${FIXTURES}/messages-input.json` });
    expect(check.exploration.brokenPromises).toEqual(['done-twice']);
    // An effect recorded with no args: nothing printed for them.
    expect(check.minimal?.differences).toEqual(['email dana@example.com committed twice']);
  }, 120_000);
});

test('a failure found with --save is kept as a corpus entry that names the module and input, and replays as expected', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'killpoint-module-corpus-'));
  try {
    const found = await runMain(['check', '--langgraph', `${FIXTURES}/node-write.ts`, '--input', '{}', '--save', dir]);
    expect(found.status).toBe(1);
    const entry = /kept as a corpus entry: (\S+\.json)/.exec(found.out.join('\n'))?.[1];
    expect(JSON.parse(readFileSync(entry!, 'utf8'))).toMatchObject({ engine: 'langgraph', strategy: `${FIXTURES}/node-write.ts --input '{}'`, schedule: { killAt: ['node-end[work]'] } });
    const replay = await runMain(['check', entry!]);
    expect(replay.out.join('\n')).toContain('replays as expected');
    expect(replay.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

describe('a set-up killpoint cannot check is bad input: exit 2, one line naming the cause', () => {
  const cases: [string, string[], RegExp][] = [
    ['a module that is not there', [`${FIXTURES}/missing.ts`], /missing\.ts: no such module/],
    ['a module without the export asked for, naming those it has', [`${FIXTURES}/no-export.ts`], /does not export createGraph\(ctx\) \(its functions: makeGraph, readEffects\)/],
    ['another export asked for that is not there', [`${FIXTURES}/node-write.ts`, '--graph-export', 'buildIt'], /does not export buildIt\(ctx\)/],
    ['a graph compiled without the checkpointer', [`${FIXTURES}/no-checkpointer.ts`], /compiled without ctx\.checkpointer/],
    ['a graph compiled with MemorySaver', [`${FIXTURES}/memory-saver.ts`], /compiled with MemorySaver, which keeps nothing across processes/],
    ['readEffects returning something other than records, naming the first bad field', [`${FIXTURES}/effects-not-records.ts`], /readEffects\(ctx\)\[1\]\.kind is number 7: expected the kind of effect/],
    ['readEffects returning a function it forgot to call', [`${FIXTURES}/effects-not-called.ts`], /readEffects\(ctx\) returned a function \(readTinyEffects\) \(not called\?\)/],
    ['a module that throws as it loads', [`${FIXTURES}/throws-on-load.ts`], /throws-on-load\.ts: the module failed to load: OPENAI_API_KEY is not set/],
    ['two runs never killed that differ, naming where', [`${FIXTURES}/not-repeatable.ts`], /two runs without a kill differ at effect 0: ping world \{"n":0\.\d+\} in the first, ping world \{"n":0\.\d+\} in the second/],
  ];
  // In process: what main prints on stderr (console.error) and the status it returns.
  test.each(cases)('%s', async (_name, moduleArgs, message) => {
    const [module, ...rest] = moduleArgs;
    const r = await runMain(['check', '--langgraph', module!, '--input', `${FIXTURES}/input.json`, ...rest]);
    const stderr = r.err.join('\n');
    expect(stderr).toMatch(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);

  // The binary itself, once (kept so that its own exit status and its one stderr line, with
  // nothing else on stderr, stay proven end to end): a case that runs the graph before the user's
  // code throws, so the process must also end by itself, nothing left holding it open.
  test('readEffects throwing (the killpoint binary itself)', () => {
    const r = killpoint(['check', '--langgraph', `${FIXTURES}/effects-throw.ts`, '--input', `${FIXTURES}/input.json`]);
    expect(r.stderr).toMatch(/readEffects\(ctx\) threw: the ledger is locked/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.status).toBe(2);
  }, 120_000);

  test('input that is not JSON', async () => {
    const r = await runMain(['check', '--langgraph', `${FIXTURES}/node-write.ts`, '--input', `${FIXTURES}/bad-input.json`]);
    expect(r.err.join('\n')).toMatch(/--input test\/fixtures\/langgraph-modules\/bad-input\.json: not JSON/);
    expect(r.status).toBe(2);
  });

  test('options that belong with --langgraph, without it', async () => {
    const r = await runMain(['check', '--input', `${FIXTURES}/input.json`]);
    expect(r.err.join('\n')).toMatch(/only with --langgraph <module>/);
    expect(r.status).toBe(2);
  });
});

// The command line in process. With a cassette every life is a process of its own (see
// langgraph/module/system.ts) that inherits this process's environment, so the model server's
// address reaches the lives (set for the file, unset after it); the server counts its calls.
describe('a real model over HTTP, recorded once in a cassette and replayed in every life', () => {
  const graph = (name: string) => ['check', '--langgraph', `${FIXTURES}/${name}.ts`, '--input', `${FIXTURES}/messages-input.json`];
  let modelServer: Server;
  let calls = 0;
  const modelCalls = () => calls;
  beforeAll(async () => {
    modelServer = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ token: Math.random().toString(36).slice(2, 8) }));
      });
    });
    await new Promise<void>((resolve) => modelServer.listen(0, '127.0.0.1', resolve));
    vi.stubEnv('KILLPOINT_TEST_MODEL_URL', `http://127.0.0.1:${(modelServer.address() as { port: number }).port}`);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    modelServer.closeAllConnections();
    modelServer.close();
  });

  test('without a cassette, a model that answers differently each time makes two runs never killed differ: bad input', async () => {
    const r = await runMain([...graph('real-model'), '--schedule', '-1']);
    expect(r.err.join('\n')).toMatch(/two runs without a kill differ at event \d+: ping call_\w+: start in the first, ping call_\w+: start in the second/);
    expect(r.status).toBe(2);
  }, 120_000);

  test('with one, the model is called only by the run that records it: every later life and check replays it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-cassette-'));
    try {
      const cassette = join(dir, 'replies.json');
      const before = modelCalls();
      const first = await runMain([...graph('real-model'), '--cassette', cassette, '--schedule', 'model-reply[model 0]']);
      expect(first.out.join('\n')).toContain('what differs from the baseline:\n    nothing');
      expect(first.status).toBe(0);
      expect(modelCalls() - before).toBe(2); // the recording run's two calls, nothing else
      expect(readFileSync(cassette, 'utf8')).not.toContain('sk-test');
      const again = await runMain([...graph('real-model'), '--cassette', cassette, '--schedule', 'model-reply[model 0]']);
      expect(again.status).toBe(0);
      expect(modelCalls() - before).toBe(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  test('a recovery that sends the model a conversation the recording lacks stops with where it diverged: a verdict, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'killpoint-cassette-'));
    try {
      const r = await runMain([...graph('real-model-repeat-aware'), '--cassette', join(dir, 'replies.json'), '--schedule', '13']);
      const stdout = r.out.join('\n');
      expect(stdout).toMatch(/ping call_\w+: result {3}<-- KILL/);
      expect(stdout).toContain('stopped: the conversation diverged at message 2 from the recording');
      expect(r.status).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
