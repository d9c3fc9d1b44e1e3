// How a session of a user's module runs a schedule: what an engine gives its module system
// (system.ts), and what the cassette's recording wraps (traffic-recorder.ts).

import type { RunOutcome, Schedule } from '../check/outcome.js';
import type { LifeTimes } from '../life-time-limit.js';

/**
 * How a session runs a schedule, and what it stops when it closes (a server it started), if
 * anything; `times`: the session's (processSession), to pass to runWholeInProcesses.
 */
export type SessionRuns = ((schedule: Schedule, times?: LifeTimes) => Promise<RunOutcome>) & { close?: () => Promise<void> };
