// An agent's HTTP traffic played by killpoint, through the command line, on examples/support-agent-http
// (a LangGraph graph on ChatOpenAI, tools calling a shop with fetch, no readEffects): recorded once
// against stand-ins for the model and the shop, which are then stopped, and checked offline. Every
// mistake with a cassette is bad input (exit 2, one line naming the file, the URL or the field).
// A Restate service and a Vercel workflow that call the shop, and the example's Vercel workflow on the
// AI SDK's OpenAI provider, run under npm run engines (KILLPOINT_SUITE=all).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startStandIns, type StandIns } from '../examples/support-agent-http/test/stand-ins.js';
import { runMain } from './helpers.js';
import { fullSuite, fullSuiteDescribe, fullSuiteTest } from './suite.js';

const EXAMPLE = 'examples/support-agent-http';
const dir = mkdtempSync(join(tmpdir(), 'killpoint-http-traffic-'));
const agent = (name: string, cassette: string, ...rest: string[]) => ['check', '--langgraph', `${EXAMPLE}/src/${name}.ts`, '--input', `${EXAMPLE}/input.json`, '--cassette', cassette, ...rest];
const recorded = join(dir, 'agent.json');
const RESTATE = 'test/fixtures/restate-modules';
const vercel = (keyed: boolean, ...rest: string[]) => ['check', '--vercel-workflow', 'test/fixtures/vercel-modules/workflows/http-refund.ts', '--input', JSON.stringify({ orderId: 'A-17', keyed }), '--cassette', join(dir, `vercel-${keyed}.json`), ...rest];
const workflow = (...rest: string[]) => ['check', '--dbos', `${EXAMPLE}/src/workflow.ts`, '--input', `${EXAMPLE}/input.json`, '--cassette', join(dir, 'workflow.json'), ...rest];
const aiSdk = (name: string, ...rest: string[]) => ['check', '--vercel-workflow', `${EXAMPLE}/src/workflows/${name}.ts`, '--input', `${EXAMPLE}/input.json`, '--cassette', join(dir, `${name}.json`), ...rest];
const AI_SDK_WORKFLOWS = ['ai-sdk', 'ai-sdk-keyed', 'ai-sdk-random-key'];
const service = (name: string, ...rest: string[]) => ['check', '--restate', `${RESTATE}/${name}.ts`, '--input', `${RESTATE}/http-input.json`, '--cassette', join(dir, `${name}.json`), ...rest];
let standIns: StandIns;
let askedWhileRecording = 0;

beforeAll(async () => {
  standIns = await startStandIns();
  for (const [name, value] of Object.entries(standIns.env)) vi.stubEnv(name, value);
  // The kill before the first event: the recording run, the two runs never killed, and one recovery.
  const first = await runMain(agent('agent', recorded, '--schedule', '-1'));
  expect(first.status, first.err.join('\n')).toBe(0);
  // The Restate service and the Vercel workflow (half a minute with their servers and builds) under npm run engines.
  for (const name of fullSuite ? ['http-unkeyed', 'http-keyed'] : []) {
    const r = await runMain(service(name, '--schedule', '-1'));
    expect(r.status, r.err.join('\n')).toBe(0);
  }
  for (const keyed of fullSuite ? [false, true] : []) {
    const r = await runMain(vercel(keyed, '--schedule', '-1'));
    expect(r.status, r.err.join('\n')).toBe(0);
  }
  // The DBOS workflow on the OpenAI SDK, streamed (a quarter of a minute), under npm run engines too.
  if (fullSuite) {
    const r = await runMain(workflow('--schedule', '-1'));
    expect(r.status, r.err.join('\n')).toBe(0);
  }
  // The example's Vercel workflow on the AI SDK's OpenAI provider: its three model calls and the shop's.
  for (const name of fullSuite ? AI_SDK_WORKFLOWS : []) {
    const r = await runMain(aiSdk(name, '--schedule', '-1'));
    expect(r.status, r.err.join('\n')).toBe(0);
  }
  askedWhileRecording = standIns.asked.length;
  await standIns.stop();
}, 600_000);

afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

describe('recorded once, then offline', () => {
  test('the recording runs alone asked the stand-ins: the graph\'s three model calls, the order read, the refund; each service\'s read and refund', () => {
    const agentAsked = ['POST /v1/chat/completions', 'GET /v1/orders/A-17', 'POST /v1/chat/completions', 'POST /v1/refunds', 'POST /v1/chat/completions'];
    const services = Array.from({ length: fullSuite ? 4 : 0 }, () => ['GET /v1/orders/A-17', 'POST /v1/refunds']).flat();
    // The DBOS workflow, then the AI SDK's three workflows, each asks as the graph does.
    const workflows = Array.from({ length: fullSuite ? 1 + AI_SDK_WORKFLOWS.length : 0 }, () => agentAsked).flat();
    expect(standIns.asked.slice(0, askedWhileRecording)).toEqual([...agentAsked, ...services, ...workflows]);
    const cassette = readFileSync(recorded, 'utf8');
    expect(cassette).not.toMatch(/authorization|stand-in-secret/i);
    expect(JSON.parse(cassette)).toMatchObject({ format: 'killpoint-http-cassette', version: 1, recordedFor: { module: `${EXAMPLE}/src/agent.ts` } });
  });

  test('killed at the shop\'s commit of the refund, the recovery refunds again: done twice, named by the request', async () => {
    const r = await runMain(agent('agent', recorded, '--schedule', 'service-commit[POST 127.0.0.1:' + new URL(standIns.env.SHOP_URL!).port + '/v1/refunds]'));
    const stdout = r.out.join('\n');
    expect(stdout).toMatch(/service committed POST 127\.0\.0\.1:\d+\/v1\/refunds {3}<-- KILL/);
    expect(stdout).toMatch(/POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice \(\{"cents":4200,"order":"A-17"\}\)/);
    expect(stdout).toContain('was committed twice with no key');
    expect(r.status).toBe(1);
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 120_000);
});

describe('lives in process and as processes, with a cassette', () => {
  /** The --json report with what names its tier taken out (the tier itself, its counters of lives repeated or children killed). */
  const verdicts = async (argv: string[]) => {
    const r = await runMain([...argv, '--json']);
    expect(r.status, r.err.join('\n')).toBe(1);
    const [report] = JSON.parse(r.out.join('\n').replaceAll(' --tier process', '')) as [{ tier: string; reduction: Record<string, number> }];
    // What the tiers count their own way: lives repeated or children killed, and the states a random key (not seeded on killpoint's own thread) tells apart.
    return { ...report, tier: undefined, summary: undefined, reduction: undefined };
  };

  test('in process (the default), every kill point of the unkeyed graph is judged from the cassette: done twice, minimal at the shop\'s commit of the refund', async () => {
    const inProcess = await verdicts(agent('agent', recorded));
    expect(inProcess).toMatchObject({ brokenPromises: ['done-twice'], minimal: { schedule: { killAt: [expect.stringMatching(/^service-commit\[POST 127\.0\.0\.1:\d+\/v1\/refunds\]$/)] } } });
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 180_000);

  fullSuiteTest('as processes killed with SIGKILL, the same verdicts at every kill point', async () => {
    expect(await verdicts(agent('agent', recorded, '--tier', 'process'))).toEqual(await verdicts(agent('agent', recorded)));
  }, 400_000);

  fullSuiteTest('the Vercel workflow whose steps call the shop: on threads of lives and as processes, the same verdicts at every kill point', async () => {
    const onThreads = await verdicts(vercel(false));
    expect(onThreads).toMatchObject({ brokenPromises: ['done-twice'] });
    expect(await verdicts(vercel(false, '--tier', 'process'))).toEqual(onThreads);
  }, 600_000);

  // The endpoint is served in the life's async context, so the handler the server calls runs in it.
  fullSuiteTest('the Restate service that calls the shop: in process and as processes, the same verdicts at every kill point', async () => {
    const inProcess = await verdicts(service('http-unkeyed'));
    expect(inProcess).toMatchObject({ brokenPromises: ['done-twice'] });
    expect(await verdicts(service('http-unkeyed', '--tier', 'process'))).toEqual(inProcess);
  }, 600_000);

  // On killpoint's own thread (a DBOS life in process), the OpenAI client made as the module loads holds the intercepted fetch.
  fullSuiteTest('the DBOS workflow on the OpenAI SDK, streamed: in process and as processes, the same verdicts at every kill point', async () => {
    const inProcess = await verdicts(workflow());
    expect(inProcess).toMatchObject({ brokenPromises: ['done-twice'], minimal: { schedule: { killAt: [expect.stringMatching(/^service-commit\[POST 127\.0\.0\.1:\d+\/v1\/refunds\]$/)] } } });
    expect(await verdicts(workflow('--tier', 'process'))).toEqual(inProcess);
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 600_000);
});

// A Restate service's own traffic (the ingress and the admin API of its restate-server) passes
// through; only the shop is played. Each schedule is a run from scratch on the server.
fullSuiteDescribe('a Restate service that calls the shop with fetch', () => {
  const atTheCommit = () => `service-commit[POST 127.0.0.1:${new URL(standIns.env.SHOP_URL!).port}/v1/refunds]`;

  test('unkeyed, killed at the shop\'s commit of the refund, it refunds twice', async () => {
    const r = await runMain(service('http-unkeyed', '--schedule', atTheCommit()));
    expect(r.out.join('\n')).toMatch(/POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice \(\{"cents":4200,"order":"A-17"\}\)/);
    expect(r.status).toBe(1);
  }, 180_000);

  test('keyed by the invocation id and the step, the same kill is harmless: the shop answers the repeat and commits nothing', async () => {
    const r = await runMain(service('http-keyed', '--schedule', atTheCommit()));
    expect(r.out.join('\n')).toContain('what differs from the baseline:\n    nothing');
    expect(r.status, r.err.join('\n')).toBe(0);
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 180_000);
});

// A Vercel workflow's steps call the shop; its local world's own work does not go over HTTP here.
fullSuiteDescribe('a Vercel workflow whose steps call the shop with fetch', () => {
  const atTheCommit = () => `service-commit[POST 127.0.0.1:${new URL(standIns.env.SHOP_URL!).port}/v1/refunds]`;

  test('unkeyed, killed at the shop\'s commit of the refund, it refunds twice; keyed by the run and the step, it does not', async () => {
    const unkeyed = await runMain(vercel(false, '--schedule', atTheCommit()));
    expect(unkeyed.out.join('\n')).toMatch(/POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice \(\{"cents":4200,"order":"A-17"\}\)/);
    expect(unkeyed.status).toBe(1);
    const keyed = await runMain(vercel(true, '--schedule', atTheCommit()));
    expect(keyed.out.join('\n')).toContain('what differs from the baseline:\n    nothing');
    expect(keyed.status, keyed.err.join('\n')).toBe(0);
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 180_000);
});

// The example's Vercel workflow whose model calls go through the AI SDK's OpenAI provider
// (generateText in a step, the model's tool call deciding the refund, the refund a fetch in a step
// of its own): the same kill at the shop's commit, with each of its three keys.
fullSuiteDescribe('a Vercel workflow on the AI SDK\'s OpenAI provider', () => {
  const atTheCommit = () => `service-commit[POST 127.0.0.1:${new URL(standIns.env.SHOP_URL!).port}/v1/refunds]`;

  for (const name of ['ai-sdk', 'ai-sdk-random-key']) {
    test(`${name}: killed at the shop's commit of the refund, the recovery refunds again (${name === 'ai-sdk' ? 'no key' : 'a fresh random key'})`, async () => {
      const r = await runMain(aiSdk(name, '--schedule', atTheCommit()));
      expect(r.out.join('\n')).toMatch(/POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice \(\{"cents":4200,"order":"A-17"\}\)/);
      expect(r.status, r.err.join('\n')).toBe(1);
    }, 180_000);
  }

  test('keyed by the run and the step, the same kill is harmless: the shop answers the repeat and commits nothing', async () => {
    const r = await runMain(aiSdk('ai-sdk-keyed', '--schedule', atTheCommit()));
    expect(r.out.join('\n')).toContain('what differs from the baseline:\n    nothing');
    expect(r.status, r.err.join('\n')).toBe(0);
    expect(standIns.asked).toHaveLength(askedWhileRecording);
  }, 180_000);
});

describe('bad input, each exit 2 in one line', () => {
  const refused = async (argv: string[], message: RegExp) => {
    const r = await runMain(argv);
    expect(r.err.join('\n')).toMatch(message);
    expect(r.status).toBe(2);
  };

  test('a cassette that is not JSON', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{ "format": ');
    await refused(agent('agent', file, '--schedule', '-1'), /broken\.json: not a cassette: /);
  }, 60_000);

  test('a cassette of another format version', async () => {
    const file = join(dir, 'v9.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(recorded, 'utf8')), version: 9 }));
    await refused(agent('agent', file, '--schedule', '-1'), /v9\.json: "version" is 9; this killpoint reads version 1/);
  }, 60_000);

  test('a cassette recorded for another module, or for another input', async () => {
    await refused(agent('agent-keyed', recorded, '--schedule', '-1'), /agent\.json: recorded for module "examples\/support-agent-http\/src\/agent\.ts", not examples\/support-agent-http\/src\/agent-keyed\.ts/);
    const other = join(dir, 'other-input.json');
    writeFileSync(other, JSON.stringify({ messages: [{ role: 'user', content: 'Refund A-18.' }] }));
    await refused(['check', '--langgraph', `${EXAMPLE}/src/agent.ts`, '--input', other, '--cassette', recorded, '--schedule', '-1'], /recorded for examples\/support-agent-http\/src\/agent\.ts with another input/);
  }, 60_000);

  test('a cassette in a folder that does not exist', async () => {
    await refused(agent('agent', join(dir, 'no-such-folder', 'agent.json')), /--cassette .*no-such-folder\/agent\.json: the folder .*no-such-folder does not exist/);
  });

  test('recording while an endpoint is down names its URL and the error, and writes nothing', async () => {
    const file = join(dir, 'down', 'agent.json');
    mkdirSync(join(dir, 'down'));
    await refused(agent('agent', file, '--schedule', '-1'), /--cassette .*down\/agent\.json: recording: http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions did not answer \(ECONNREFUSED\)/);
    expect(() => readFileSync(file)).toThrow();
  }, 60_000);

  // A graph whose run never killed fails while it records: the session's first life, explored by
  // equivalence, found no cassette and said it was "removed while the check ran", hiding the error.
  test('a run without a kill that fails while it records is named with its error, and writes nothing', async () => {
    const file = join(dir, 'fails', 'agent.json');
    mkdirSync(join(dir, 'fails'));
    const argv = ['check', '--langgraph', 'test/fixtures/langgraph-modules/node-throws.ts', '--input', '{}', '--cassette', file];
    // The run from scratch ends the check with its own cause before any life looks for the cassette.
    await refused(argv, /--cassette .*fails\/agent\.json.*the run without a kill (that records it )?did not finish: .*the order service is down/);
    expect(() => readFileSync(file)).toThrow();
  }, 120_000);

  test('traffic options without a cassette', async () => {
    await refused(['check', '--langgraph', `${EXAMPLE}/src/agent.ts`, '--input', `${EXAMPLE}/input.json`, '--record'], /--record: only with --cassette <file>/);
  });
});
