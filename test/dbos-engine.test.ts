// DBOS under killpoint: a real DBOS workflow, each life a process killed with SIGKILL, its system
// database on a private Postgres and on PGlite served from this process. The sample npm test runs
// (the full sweep, with the differential over the 14 tasks, is npm run dbos): Dana's task at every
// kill point on Postgres, checked against killpoint's scripted workflow strategy kill point by kill
// point, and the same kill points explored by equivalence checked against those runs from scratch;
// chosen points on PGlite, with keys, with the broken random keys (caught), and the
// parallel-call task's order chosen and repeatable. Where this machine has no Postgres server binaries (and no KILLPOINT_POSTGRES_URL),
// the Postgres part is skipped and says why.

import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { failedChecks } from '../src/harness/check/checks.js';
import { eventIdentities, findKillPoint } from '../src/harness/check/kill-points.js';
import type { RunOutcome } from '../src/harness/check/outcome.js';
import { judge } from '../src/harness/check/verdict.js';
import { POSTGRES_BIN_DIRS, postgresBinDir } from '../src/harness/engines/dbos/backends/postgres-cluster.js';
import { POSTGRES_URL_VARIABLE, stopBackends, systemDatabase } from '../src/harness/engines/dbos/backend.js';
import { scriptedMoment, verdictDifferences } from '../src/harness/engines/dbos/differential.js';
import { dbosSystem } from '../src/harness/engines/dbos/engine.js';
import { copiesInDatabase, rowsNotCopied } from '../src/harness/engines/dbos/tier.js';
import { scripted } from '../src/harness/engines/scripted/engine.js';
import { lanternScenario } from '../src/model/load.js';
import type { Scenario } from '../src/model/scenario.js';
import { liveChildCount } from '../src/harness/process/processes.js';
import { inPool } from '../src/harness/process/pool.js';
import { exploreByEquivalence } from '../src/harness/search/equivalence.js';
import { runSchedule } from '../src/harness/session.js';
import type { Verdict } from '../src/harness/check/verdict.js';
import type { CheckName } from '../src/harness/check/checks.js';

const dana = lanternScenario('T01');
const ivan = lanternScenario('T03');
const CONCURRENCY = 2;
const NONE = { kills: [], interleaving: [] };
const POSTGRES_HERE = postgresBinDir() !== null || Boolean(process.env[POSTGRES_URL_VARIABLE]);

const system = (name: string) => dbosSystem(name)!;
const runAt = async (scenario: Scenario, name: string, identity: string, base?: RunOutcome) => {
  const baseline = base ?? (await runSchedule(system(name), scenario, NONE));
  const k = findKillPoint(baseline.lives[0]!.events, identity);
  if (k === null) throw new Error(`${name}: no event ${identity} in ${eventIdentities(baseline.lives[0]!.events).join(', ')}`);
  const outcome = await runSchedule(system(name), scenario, { kills: [k], interleaving: [] });
  const verdict = judge(scenario, outcome, baseline);
  return { outcome, verdict, failed: failedChecks({ scenario, outcome, verdict }) };
};

afterAll(async () => {
  await stopBackends();
  expect(liveChildCount()).toBe(0);
});

describe("Dana's refund on DBOS + Postgres, at every kill point", () => {
  if (!POSTGRES_HERE) {
    // The reason names what was looked for, so a reader can check it (Debian's postgresql package provides them).
    it.skip(`skipped: no initdb and pg_ctl in ${POSTGRES_BIN_DIRS.join(', ')} or KILLPOINT_POSTGRES_BIN, and ${POSTGRES_URL_VARIABLE} is not set`, () => undefined);
    return;
  }
  it('repeats the refund exactly when killed after its commit and before its step is recorded, and agrees with the scripted workflow strategy at every kill point', async () => {
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

    const verdicts = await inPool(ids.map((_, k) => k), CONCURRENCY, async (k) => {
      const outcome = await runSchedule(db, dana, { kills: [k], interleaving: [] });
      const verdict = judge(dana, outcome, baseline);
      return { k, identity: ids[k]!, verdict, failed: failedChecks({ scenario: dana, outcome, verdict }) };
    });
    expect(verdicts.filter((v) => v.verdict.doneTwice.length > 0).map((v) => v.identity)).toEqual(['shop-commit[call_refund]', 'tool-result[call_refund]']);
    expect(verdicts.flatMap((v) => v.failed.filter((c) => db.promised.includes(c)))).toEqual([]);

    // killpoint's model of DBOS: the same verdict at every kill point, moment for moment.
    const model = scripted('workflow');
    const modelBaseline = runSchedule(model, dana, NONE) as RunOutcome;
    const modelEvents = modelBaseline.lives[0]!.events;
    const differences = verdicts.flatMap((v) => {
      const moment = scriptedMoment(events, v.k);
      const mk = findKillPoint(modelEvents, moment);
      if (mk === null) return [`${v.identity}: the scripted workflow has no moment ${moment}`];
      const j = judge(dana, runSchedule(model, dana, { kills: [mk], interleaving: [] }) as RunOutcome, modelBaseline);
      return verdictDifferences(v.verdict, j).map((d) => `${v.identity} (scripted ${moment}): ${d}`);
    });
    expect(differences).toEqual([]);

    // By equivalence (a child killed at every kill point, one recovery per distinct state of the
    // shop, the outbox and the workflow's rows): every kill point has the verdict of its run from scratch.
    const reduced = new Map<number, { verdict: Verdict; failed: readonly CheckName[] }>();
    const explored = await exploreByEquivalence(dana, db, { orders: [[]] }, 1, (c) => {
      if (c.kills[0]! >= 0) reduced.set(c.kills[0]!, { verdict: c.verdict(), failed: c.failed });
    }, { concurrency: CONCURRENCY });
    const comparable = (v: Verdict) => ({ doneTwice: v.doneTwice.map(String), lost: v.lostWrites.map(String), refused: v.refused, sameAnswer: v.sameAnswer, modelCallsRedone: v.modelCallsRedone, answers: v.answersDelivered });
    expect(reduced.size).toBe(ids.length);
    for (const v of verdicts) {
      const r = reduced.get(v.k)!;
      expect({ at: v.identity, failed: r.failed, ...comparable(r.verdict) }).toEqual({ at: v.identity, failed: v.failed, ...comparable(v.verdict) });
    }
    expect(explored.reduction.childrenKilled).toBe(ids.length);
    expect(explored.reduction.livesRun).toBeLessThan(ids.length / 2);
    // The copies' rows are gone with the exploration: a user's own Postgres does not fill up with them.
    expect(await copiesInDatabase('postgres')).toBe(0);
    expect(liveChildCount()).toBe(0);
  }, 500_000);
});

describe('chosen kill points on PGlite', () => {
  it('with keys (workflow id + tool call id), a kill in the gap sends the refund again and the key makes it harmless; the broken random keys are caught', async () => {
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

  it('a workflow with rows that do not carry its id (a message sent to it) is found out, so that its states are never copied without them', async () => {
    await runSchedule(system('pglite/workflow'), dana, NONE);
    const url = await systemDatabase('pglite');
    const { Pool } = createRequire(createRequire(import.meta.url).resolve('@dbos-inc/dbos-sdk'))('pg') as { Pool: new (o: { connectionString: string; max: number }) => { query(t: string, v?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>; end(): Promise<void> } };
    const pool = new Pool({ connectionString: url, max: 1 });
    try {
      const { rows } = await pool.query("SELECT workflow_uuid FROM dbos.workflow_status WHERE position('~' in workflow_uuid) = 0 LIMIT 1");
      const id = rows[0]!.workflow_uuid as string;
      expect(await rowsNotCopied(url, id)).toEqual([]);
      await pool.query("INSERT INTO dbos.notifications (destination_uuid, topic, message) VALUES ($1, 'news', 'hello')", [id]);
      expect(await rowsNotCopied(url, id)).toEqual(['1 in dbos.notifications (messages sent to the workflow)']);
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
