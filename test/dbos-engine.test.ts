// DBOS under killpoint: a real DBOS workflow, each life run in killpoint's process and cut off at its
// kill point (the default; test/dbos-in-process.test.ts compares it with SIGKILL), or a process
// killed with SIGKILL (--tier process), its system database on a private Postgres and on PGlite
// served from this process. `npm test` runs the sample (test/suite.ts): Dana's refund on PGlite
// without keys, killed right after its step is recorded and after the workflow is, each recovery
// repeating nothing, and the tests of a second or less on the PGlite it started (rows that do not
// carry the workflow's id, the parallel calls' order). `npm run engines` runs every test:
// on Postgres, Dana's task at the kill points of the refund's gap, the workflow's start and record,
// the answer and a stride through the rest, each run from scratch and checked against killpoint's
// scripted workflow strategy kill point by kill point; a one-refund task at every kill point,
// explored by equivalence with a child killed at each, checked against the scripted workflow strategy
// at every one and against runs from scratch; chosen points on PGlite, with keys, with the broken random keys (caught), and
// the parallel-call task's order chosen and repeatable. The full sweep, every kill point of the 14
// tasks from scratch against the model, is `npm run dbos` (Dana's on Postgres:
// `npm run dbos -- --backend postgres --systems workflow --scenarios T01`, and with
// `--by-equivalence` each kill point's verdict by equivalence checked against its run from
// scratch too). Where this machine has no Postgres server binaries (and no KILLPOINT_POSTGRES_URL),
// the Postgres part is skipped and says why.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { POSTGRES_BIN_DIRS, postgresBinDir } from '../src/harness/engines/dbos/backends/postgres-cluster.js';
import { holdBackend, POSTGRES_URL_VARIABLE, stopBackends, systemDatabase } from '../src/harness/engines/dbos/backend.js';
import { scriptedMoment, verdictDifferences } from '../src/harness/engines/dbos/differential.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { copiesInDatabase, rowsNotCopied } from '../src/harness/engines/dbos/tier.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenario, loadScenarioFile } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import type { RunEvent } from '../src/harness/check/events.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';
import type { Verdict } from '../src/harness/check/verdict.js';
import { judgedFromScratch, type JudgedPoint } from './helpers.js';
import { fullSuiteDescribe, fullSuiteTest } from './suite.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const oneRefund = loadScenarioFile(join(import.meta.dirname, 'fixtures', 'one-refund.json'));
const CONCURRENCY = 2;
const NONE = { kills: [], interleaving: [] };
const POSTGRES_HERE = postgresBinDir() !== null || Boolean(process.env[POSTGRES_URL_VARIABLE]);
/** Of Dana's task, every STRIDE-th kill point is run from scratch, besides those that matter. */
const STRIDE = 16;
/** Where a kill repeats the refund: after its commit, before its step is recorded. */
const GAP = ['shop-commit[call_refund]', 'tool-result[call_refund]'];

const system = (name: string) => dbosSystem(name)!;
const processes = (name: string) => dbosSystem(name, { tier: 'process' })!;
const runAt = async (scenario: Scenario, name: string, identity: string, base?: RunOutcome) => {
  const baseline = base ?? (await runSchedule(system(name), scenario, NONE));
  const k = findKillPoint(baseline.lives[0]!.events, identity);
  if (k === null) throw new Error(`${name}: no event ${identity} in ${eventIdentities(baseline.lives[0]!.events).join(', ')}`);
  const outcome = await runSchedule(system(name), scenario, { kills: [k], interleaving: [] });
  const verdict = judge(scenario, outcome, baseline);
  return { outcome, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
};

/** killpoint's model of DBOS: the same verdict at every kill point, moment for moment (one line per difference). */
function againstModel(scenario: Scenario, events: readonly RunEvent[], verdicts: readonly JudgedPoint[]): string[] {
  const model = scripted('workflow');
  const modelBaseline = runSchedule(model, scenario, NONE) as RunOutcome;
  const modelEvents = modelBaseline.lives[0]!.events;
  return verdicts.flatMap((v) => {
    const moment = scriptedMoment(events, v.k);
    const mk = moment === 'start' ? -1 : findKillPoint(modelEvents, moment);
    if (mk === null) return [`${v.identity}: the scripted workflow has no moment ${moment}`];
    const j = judge(scenario, runSchedule(model, scenario, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
    return verdictDifferences(v.verdict, j).map((d) => `${v.identity} (scripted ${moment}): ${d}`);
  });
}

const comparable = (v: Verdict) => ({ doneTwice: v.doneTwice.map(String), lost: v.lostWrites.map(String), refused: v.refused, sameAnswer: v.sameAnswer, modelCallsRedone: v.modelCallsRedone, answers: v.answersDelivered });

afterAll(async () => {
  await stopBackends();
  expect(liveChildCount()).toBe(0);
});

fullSuiteDescribe('DBOS + Postgres', () => {
  if (!POSTGRES_HERE) {
    // The reason names what was looked for, so a reader can check it (Debian's postgresql package provides them).
    it.skip(`skipped: no initdb and pg_ctl in ${POSTGRES_BIN_DIRS.join(', ')} or KILLPOINT_POSTGRES_BIN, and ${POSTGRES_URL_VARIABLE} is not set`, () => undefined);
    return;
  }
  it("Dana's refund, at the kill points that matter and a stride through the rest: repeats the refund exactly when killed after its commit and before its step is recorded, and agrees with the scripted workflow strategy at each", async () => {
    const db = system('postgres/workflow');
    const baseline = await runSchedule(db, dana, NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    // The commit hooks (the SDK's debug trigger points) still fire: every step that ran is
    // followed by its record, and the workflow's start is seen.
    const steps = events.filter((e) => e.kind === 'model-request' || e.kind === 'tool-start').length;
    expect(events.filter((e) => e.kind === 'step-recorded')).toHaveLength(steps);
    expect(ids[0]).toBe('workflow-started');
    expect(ids.slice(-2)).toEqual(['workflow-recorded', 'answer-delivered']);

    // Before anything, the workflow's start, every event of the refund's step with the record
    // before it and the request after it, the workflow's record, the answer, and a stride.
    const refund = ids.flatMap((id, k) => (id.endsWith('[call_refund]') ? [k] : []));
    expect(refund.length).toBe(4);
    const points = [...new Set([-1, 0, refund[0]! - 1, ...refund, refund.at(-1)! + 1, ids.indexOf('workflow-recorded'), ids.length - 1, ...Array.from({ length: Math.ceil((ids.length + 1) / STRIDE) }, (_, i) => i * STRIDE - 1)])].sort((a, b) => a - b);
    const verdicts = await judgedFromScratch(system('postgres/workflow'), dana, baseline, points);
    expect(verdicts.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(GAP);
    expect(verdicts.flatMap((v) => v.failed.filter((c) => db.promised.includes(c)))).toEqual([]);
    expect(againstModel(dana, events, verdicts)).toEqual([]);
    expect(liveChildCount()).toBe(0);
  }, 300_000);

  it('a one-refund task at every kill point by equivalence (a child killed at each, one recovery per distinct state of the shop, the outbox and the workflow\'s rows): the refund repeated exactly in its gap, the scripted workflow strategy\'s verdict at every kill point, and the verdict of the run from scratch', async () => {
    const db = processes('postgres/workflow');
    const baseline = await runSchedule(db, oneRefund, NONE);
    const events = baseline.lives[0]!.events;
    const ids = eventIdentities(events);
    const reduced: JudgedPoint[] = [];
    const explored = await exploreByEquivalence(oneRefund, db, [{ picks: [], baseline }], 1, (c) => {
      const k = c.kills[0]!;
      if (k >= 0) reduced.push({ k, identity: ids[k]!, verdict: c.verdict(), failed: c.failed });
    }, { concurrency: CONCURRENCY });
    expect(reduced.map((v) => v.k)).toEqual(ids.map((_, k) => k));
    expect(reduced.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(GAP);
    expect(reduced.flatMap((v) => v.failed.filter((c) => db.promised.includes(c)))).toEqual([]);
    expect(againstModel(oneRefund, events, reduced)).toEqual([]);

    // The verdict of the run from scratch where it changes: before the commit, in the gap, after the step's record, after the workflow's.
    const points = ['tool-start[call_refund]', 'shop-commit[call_refund]', 'step-recorded[call_refund]', 'workflow-recorded'].map((id) => ids.indexOf(id));
    expect(points.every((k) => k >= 0)).toBe(true);
    for (const v of await judgedFromScratch(db, oneRefund, baseline, points)) {
      const r = reduced[v.k]!;
      expect({ at: v.identity, failed: r.failed, ...comparable(r.verdict) }).toEqual({ at: v.identity, failed: v.failed, ...comparable(v.verdict) });
    }
    expect(explored.reduction.childrenKilled).toBe(ids.length);
    // Kill points share recoveries: a digest that told every kill point apart would run one per kill point.
    expect(explored.reduction.livesRun).toBeLessThan(ids.length * 0.6);
    // The copies' rows are gone with the exploration: a user's own Postgres does not fill up with them.
    expect(await copiesInDatabase('postgres')).toBe(0);
    expect(liveChildCount()).toBe(0);
  }, 300_000);
});

describe('chosen kill points on PGlite', () => {
  fullSuiteTest('with keys (workflow id + tool call id), a kill in the gap sends the refund again and the key makes it harmless; the broken random keys are caught', async () => {
    const keyed = await runAt(dana, 'pglite/workflow+keys', 'shop-commit[call_refund]');
    expect(keyed.verdict.harmlessRepeats).toBe(1);
    expect(keyed.failed).toEqual([]);
    const random = await runAt(dana, 'pglite/workflow+random-keys', 'shop-commit[call_refund]');
    expect(random.verdict.doneTwice.map(String)).toHaveLength(1);
    expect(random.failed.filter((c) => system('pglite/workflow+random-keys').promised.includes(c))).toContain('done-twice');
  }, 240_000);

  it('no keys: a kill right after the step is recorded repeats nothing; after the workflow is recorded the answer is delivered once, by the recovery', async () => {
    const base = await runSchedule(system('pglite/workflow'), dana, NONE);
    const recorded = await runAt(dana, 'pglite/workflow', 'step-recorded[call_refund]', base);
    expect(recorded.failed).toEqual([]);
    const finished = await runAt(dana, 'pglite/workflow', 'workflow-recorded', base);
    expect(finished.failed).toEqual([]);
    expect(finished.outcome.lives[1]!.events.map((e) => e.kind)).toEqual(['workflow-recorded', 'answer-delivered']);
  }, 240_000);

  it('a workflow with rows that do not carry its id (a workflow it started) is found out, so that its states are never copied without them; a message sent to it is copied with it', async () => {
    // Held for the test: once the run's session has closed, an unheld PGlite stops after a short
    // grace, which a loaded machine outlasted between the run and these queries (ECONNREFUSED).
    onTestFinished(holdBackend('pglite'));
    await runSchedule(system('pglite/workflow'), dana, NONE);
    const url = await systemDatabase('pglite');
    const { Pool } = createRequire(createRequire(import.meta.url).resolve('@dbos-inc/dbos-sdk'))('pg') as { Pool: new (o: { connectionString: string; max: number }) => { query(t: string, v?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>; end(): Promise<void> } };
    const pool = new Pool({ connectionString: url, max: 1 });
    try {
      const { rows } = await pool.query("SELECT workflow_uuid FROM dbos.workflow_status WHERE position('~' in workflow_uuid) = 0 LIMIT 1");
      const id = rows[0]!.workflow_uuid as string;
      expect(await rowsNotCopied(url, id)).toEqual([]);
      await pool.query("INSERT INTO dbos.notifications (destination_uuid, topic, message) VALUES ($1, 'news', 'hello')", [id]);
      expect(await rowsNotCopied(url, id)).toEqual([]);
      await pool.query("INSERT INTO dbos.workflow_status (workflow_uuid, status, parent_workflow_id) VALUES ($1, 'PENDING', $2)", [`${id}-child`, id]);
      expect(await rowsNotCopied(url, id)).toEqual(['1 in dbos.workflow_status (workflows it started)']);
      await pool.query('DELETE FROM dbos.workflow_status WHERE workflow_uuid = $1', [`${id}-child`]);
      await pool.query('DELETE FROM dbos.notifications WHERE destination_uuid = $1', [id]);
    } finally {
      await pool.end();
    }
  }, 120_000);

  it("the order of Ivan's parallel cancellations is killpoint's to choose: the same picks give the same events, other picks another order", async () => {
    const db = system('pglite/workflow');
    const [a, b] = await Promise.all([runSchedule(db, ivan, NONE), runSchedule(db, ivan, NONE)]);
    expect(b.lives[0]!.events).toEqual(a.lives[0]!.events);
    expect(a.pickWidths.some((w) => w > 1)).toBe(true);
    const other = a.picksTaken.map((p, i) => (a.pickWidths[i]! > 1 ? a.pickWidths[i]! - 1 - p : p));
    const [c, d] = await Promise.all([runSchedule(db, ivan, { kills: [], interleaving: other }), runSchedule(db, ivan, { kills: [], interleaving: other })]);
    expect(d.lives[0]!.events).toEqual(c.lives[0]!.events);
    expect(eventIdentities(c.lives[0]!.events)).not.toEqual(eventIdentities(a.lives[0]!.events));
    expect(judge(ivan, c, a).sameAnswer).toBe(true);
  }, 240_000);
});
