// The DBOS systems killpoint checks, by name `<backend>/<mode>`: where DBOS keeps its system
// database, and how the agent's writes are keyed. Shared by the parent and the child; imports no
// DBOS. The backend is part of the name (not an option of its own) so that a replay command or a
// corpus entry names everything that ran: `--engine dbos --strategy pglite/workflow` replays as is.
//
//   pglite     embedded PGlite, served over a socket from the killpoint process (it outlives
//              every child's SIGKILL); nothing to install.
//   postgres   a real Postgres: KILLPOINT_POSTGRES_URL when set, else a private cluster that
//              killpoint starts from this machine's server binaries and removes afterwards.
//
//   workflow           each model call and each tool call a DBOS step (parallel calls in
//                      Promise.all), the answer delivered through the outbox once the workflow's
//                      output is recorded. No keys: a kill between a write's commit and its step
//                      record sends the write again (the gap).
//   workflow+keys      as workflow; every write carries the key workflow id + tool call id.
//   workflow+random-keys (broken) keys from a fresh random id made inside the step, new in every
//                      life: they never match, so the check must catch the repeat.
//   workflow/new-executor (broken) every life launches DBOS with an executor id of its own: the
//                      recovery never picks the workflow up and waits forever (the life's time
//                      limit ends it: bad input, exit 2).

import { givenPostgresUrl } from './backends/postgres-url.js';
import type { PackageNeeds } from '../../process/package-paths.js';

export const BACKENDS = ['pglite', 'postgres'] as const;
export const MODES = ['workflow', 'workflow+keys', 'workflow+random-keys', 'workflow/new-executor'] as const;

export type Backend = (typeof BACKENDS)[number];

/** What a DBOS life loads: the SDK, and on the embedded backend PGlite, which killpoint serves. */
export function dbosNeeds(backend: Backend): PackageNeeds {
  return { by: 'dbos', packages: ['@dbos-inc/dbos-sdk', ...(backend === 'pglite' ? ['@electric-sql/pglite'] : [])] };
}
export type Mode = (typeof MODES)[number];
export type Keys = 'none' | 'stable' | 'random';

export interface DbosConfig {
  backend: Backend;
  mode: Mode;
  keys: Keys;
  /** Each life a new executor id (broken: recovery never happens). */
  newExecutorEachLife: boolean;
  broken: boolean;
}

export function dbosSystemName(c: DbosConfig): string {
  return `${c.backend}/${c.mode}`;
}

function configOf(backend: Backend, mode: Mode): DbosConfig {
  return {
    backend,
    mode,
    keys: mode === 'workflow+keys' ? 'stable' : mode === 'workflow+random-keys' ? 'random' : 'none',
    newExecutorEachLife: mode === 'workflow/new-executor',
    broken: mode === 'workflow+random-keys' || mode === 'workflow/new-executor',
  };
}

export function allDbosConfigs(): DbosConfig[] {
  return BACKENDS.flatMap((backend) => MODES.map((mode) => configOf(backend, mode)));
}

/**
 * The system of this name, or undefined. A postgres system on the user's server
 * (KILLPOINT_POSTGRES_URL) is chosen only once its URL is checked: a bad one is bad input, said
 * before any session opens (backends/postgres-url.ts).
 */
export function dbosConfigNamed(name: string): DbosConfig | undefined {
  const config = allDbosConfigs().find((c) => dbosSystemName(c) === name);
  if (config?.backend === 'postgres') givenPostgresUrl();
  return config;
}
