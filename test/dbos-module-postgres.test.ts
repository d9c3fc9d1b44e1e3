// A user's own DBOS workflow on Postgres (KILLPOINT_POSTGRES_URL: the user's server, or here a
// private cluster from this machine's server binaries standing in for it): every life runs under
// the run's own workflow id, so a key made of DBOS.workflowID and DBOS.stepID holds at every kill
// point in either tier, and a key made of a random id per step is caught. Where the machine has
// neither the binaries nor a URL, the tests are skipped, saying what they looked for.
// `npm test` runs the sample (test/suite.ts): the keyed workflow in process; `npm run engines`
// (KILLPOINT_SUITE=all) adds the process tier and the random key caught.

import { afterAll, beforeAll, expect, test } from 'vitest';
import { databaseClient, stopBackends, systemDatabase, POSTGRES_URL_VARIABLE } from '../src/harness/engines/dbos/backend.js';
import { copiesInDatabase } from '../src/harness/engines/dbos/tier.js';
import { POSTGRES_BIN_DIRS, postgresBinDir, startPostgresCluster, type PostgresCluster } from '../src/harness/engines/dbos/backends/postgres-cluster.js';
import { runMain } from './helpers.js';
import { fullSuite } from './suite.js';

const FIXTURES = 'test/fixtures/dbos-modules';
const GIVEN_URL = process.env[POSTGRES_URL_VARIABLE];
const POSTGRES_HERE = Boolean(GIVEN_URL) || postgresBinDir() !== null;

let cluster: PostgresCluster | null = null;
beforeAll(async () => {
  if (!POSTGRES_HERE || GIVEN_URL) return;
  cluster = await startPostgresCluster(postgresBinDir()!);
  process.env[POSTGRES_URL_VARIABLE] = cluster.url;
}, 120_000);
afterAll(async () => {
  await stopBackends();
  if (cluster !== null) {
    delete process.env[POSTGRES_URL_VARIABLE];
    cluster.stop();
  }
});

const reason = `skipped: no initdb and pg_ctl in ${POSTGRES_BIN_DIRS.join(', ')} or KILLPOINT_POSTGRES_BIN, and ${POSTGRES_URL_VARIABLE} is not set`;

test.skipIf(!POSTGRES_HERE)(`on Postgres, a workflow keyed by DBOS.workflowID and DBOS.stepID passes every kill point in process, on this server, its explored copies' rows gone (${POSTGRES_HERE ? 'run' : reason})`, async () => {
  const keyed = await runMain(['check', '--dbos', `${FIXTURES}/keyed-by-dbos-id.ts`, '--input', `${FIXTURES}/input.json`]);
  expect(keyed.err.join('\n')).toBe('');
  expect(keyed.status).toBe(0);
  // The runs were on this server (their runs never killed leave their rows), and the explored copies' rows are gone.
  const { rows } = await databaseClient(await systemDatabase('postgres')).query("SELECT count(*)::int AS n FROM dbos.workflow_status WHERE name = 'support-refund'");
  expect(rows[0]!.n).toBeGreaterThan(0);
  expect(await copiesInDatabase('postgres')).toBe(0);
}, 300_000);

test.skipIf(!POSTGRES_HERE || !fullSuite)(`on Postgres, the same workflow passes every kill point in the process tier too; keyed by a random id per step, its refund is done twice (${POSTGRES_HERE ? 'npm run engines' : reason})`, async () => {
  const keyed = await runMain(['check', '--dbos', `${FIXTURES}/keyed-by-dbos-id.ts`, '--input', `${FIXTURES}/input.json`, '--tier', 'process']);
  expect(keyed.err.join('\n')).toBe('');
  expect(keyed.status).toBe(0);
  const random = await runMain(['check', '--dbos', `${FIXTURES}/keyed-randomly.ts`, '--input', `${FIXTURES}/input.json`]);
  expect(random.out.join('\n')).toContain('refund O-7 committed twice');
  expect(random.status).toBe(1);
  expect(await copiesInDatabase('postgres')).toBe(0);
}, 300_000);

// Postgres wakes a waiting recv by LISTEN/NOTIFY (PGlite's lives poll): the answers sent by
// --resume are taken once each there too, and the messages moved and copied with the run's rows.
test.skipIf(!POSTGRES_HERE || !fullSuite)(`on Postgres, a workflow that waits in DBOS.recv for its answer passes every kill point in process; with two answers, killed once the first is sent, the second wait gets its own in the process tier (${POSTGRES_HERE ? 'npm run engines' : reason})`, async () => {
  const workflow = ['check', '--dbos', `${FIXTURES}/refund-approval-keyed.ts`];
  const every = await runMain([...workflow, '--input', `${FIXTURES}/approval-one.json`, '--resume', '[true]']);
  expect(every.err.join('\n')).toBe('');
  expect(every.out.join('\n')).toContain('14 schedules of up to 1 kill');
  expect(every.status).toBe(0);
  const sent = await runMain([...workflow, '--input', `${FIXTURES}/approval-two.json`, '--resume', '[true, false]', '--tier', 'process', '--schedule', 'resume[approval#1]']);
  expect(sent.out.join('\n')).toContain('what differs from the baseline:\n    nothing');
  expect(sent.status).toBe(0);
  expect(await copiesInDatabase('postgres')).toBe(0);
}, 300_000);
