// The support agent and workflows, checked by killpoint as they are, with no ledger and no
// readEffects: the first run never killed records their HTTP traffic (the model's replies, the
// shop's answers) against stand-ins for the hosted model and the shop, the stand-ins are stopped,
// and every check after runs offline from the cassettes. killpoint plays the shop: a refund is
// committed before its answer, and a kill between the two is where a repeat refunds twice. Only a
// key that is the same in every life of the run (the thread and the tool call; DBOS.workflowID and
// DBOS.stepID; the Vercel workflow's run and step) makes the repeat harmless.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { checkDbosSchedule, checkLangGraphSchedule, checkVercelWorkflowSchedule } from 'killpoint';
import { killpointTests } from 'killpoint/vitest';
import { startStandIns, type StandIns } from './stand-ins.js';

const cassettes = mkdtempSync(join(tmpdir(), 'support-agent-http-cassettes-'));
const cassette = (module: string) => join(cassettes, `${module.replace(/^src\//, '').replace(/\.ts$/, '').replaceAll('/', '-')}.json`);
const GRAPHS = ['src/agent.ts', 'src/agent-keyed.ts', 'src/agent-random-key.ts'];
const WORKFLOWS = ['src/workflow.ts', 'src/workflow-keyed.ts', 'src/workflow-random-key.ts'];
const VERCEL_WORKFLOWS = ['src/workflows/ai-sdk.ts', 'src/workflows/ai-sdk-keyed.ts', 'src/workflows/ai-sdk-random-key.ts'];

let standIns: StandIns;
let askedWhileRecording = 0;

// Recorded once: a run never killed per module goes to the stand-ins (a kill before the first
// event asks nothing more of them), then they are stopped for good.
beforeAll(async () => {
  standIns = await startStandIns();
  Object.assign(process.env, standIns.env);
  for (const module of GRAPHS) await checkLangGraphSchedule({ module, inputFile: 'input.json', cassette: cassette(module) }, [-1]);
  for (const module of WORKFLOWS) await checkDbosSchedule({ module, inputFile: 'input.json', cassette: cassette(module) }, [-1]);
  for (const module of VERCEL_WORKFLOWS) await checkVercelWorkflowSchedule({ module, inputFile: 'input.json', cassette: cassette(module) }, [-1]);
  askedWhileRecording = standIns.asked.length;
  await standIns.stop();
}, 600_000);

afterAll(() => {
  // Only the recording runs reached the stand-ins: every life after was answered from a cassette.
  expect(standIns.asked).toHaveLength(askedWhileRecording);
});

test('the cassettes hold the traffic, and no credential', () => {
  for (const module of [...GRAPHS, ...WORKFLOWS, ...VERCEL_WORKFLOWS]) {
    const text = readFileSync(cassette(module), 'utf8');
    expect(text).toContain('/v1/chat/completions');
    expect(text).toContain('/v1/refunds');
    expect(text).not.toMatch(/authorization|sk-stand-in-secret|shop-stand-in-secret/i);
  }
});

// Stable keys, offline: every kill point survives.
killpointTests('the graph keyed by its thread and tool call', { langgraph: 'src/agent-keyed.ts', inputFile: 'input.json', cassette: cassette('src/agent-keyed.ts') });
killpointTests('the workflow keyed by DBOS.workflowID and DBOS.stepID', { dbos: 'src/workflow-keyed.ts', inputFile: 'input.json', cassette: cassette('src/workflow-keyed.ts') });
killpointTests('the Vercel workflow on the AI SDK keyed by its run and step', { vercelWorkflow: 'src/workflows/ai-sdk-keyed.ts', inputFile: 'input.json', cassette: cassette('src/workflows/ai-sdk-keyed.ts') });

// Every module through the command line, offline: stable keys exit 0; no key, or a fresh random
// one, exit 1, the refund done twice at its minimal kill point, the shop's commit of the refund
// (killed after it, before its answer reached the agent).
const CASES = [
  { option: '--langgraph', module: 'src/agent-keyed.ts', exit: 0 },
  { option: '--langgraph', module: 'src/agent.ts', exit: 1 },
  { option: '--langgraph', module: 'src/agent-random-key.ts', exit: 1 },
  { option: '--dbos', module: 'src/workflow-keyed.ts', exit: 0 },
  { option: '--dbos', module: 'src/workflow.ts', exit: 1 },
  { option: '--dbos', module: 'src/workflow-random-key.ts', exit: 1 },
  { option: '--vercel-workflow', module: 'src/workflows/ai-sdk-keyed.ts', exit: 0 },
  { option: '--vercel-workflow', module: 'src/workflows/ai-sdk.ts', exit: 1 },
  { option: '--vercel-workflow', module: 'src/workflows/ai-sdk-random-key.ts', exit: 1 },
];
for (const { option, module, exit } of CASES) {
  test(`npx killpoint check ${option} ${module}: exit ${exit}`, () => {
    const r = spawnSync('npx', ['killpoint', 'check', option, module, '--input', 'input.json', '--cassette', cassette(module)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(exit);
    if (exit === 0) return expect(r.stdout).toContain('every promised check holds');
    expect(r.stdout).toMatch(/kill schedule: \d+ \(service-commit\[POST 127\.0\.0\.1:\d+\/v1\/refunds\]\)/);
    expect(r.stdout).toMatch(/POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice \(\{"cents":4200,"order":"A-17"\}\)/);
  }, 600_000);
}

// One kill, replayed as a failure's replay line prints it: quicker than the search while a fix is tried.
test('one kill replayed: at the shop\'s commit of the refund, the recovery refunds again', async () => {
  const check = await checkLangGraphSchedule({ module: 'src/agent.ts', inputFile: 'input.json', cassette: cassette('src/agent.ts') }, [30]);
  expect(check.ok).toBe(false);
  expect(check.failure.killAt[0]).toMatch(/^service-commit\[POST 127\.0\.0\.1:\d+\/v1\/refunds\]$/);
  expect(check.failure.differences[0]).toMatch(/^POST 127\.0\.0\.1:\d+\/v1\/refunds committed twice/);
}, 600_000);
