// What a Restate life needs to know about its run, as a JSON file beside its state, and the files
// it keeps its state in (the rest of its durable state, the invocation's journal, is in the
// session's server). Shared by the parent and the child; imports no Restate.

import type { SerializedScenario } from '../../../model/scenario-json.js';
import type { RestateConfig } from './config.js';

/** Environment variables of the Restate child, beside the protocol's own (src/harness/process/protocol.ts). */
export const RESTATE_ENV = { run: 'KILLPOINT_RESTATE_RUN', picks: 'KILLPOINT_RESTATE_PICKS' } as const;

/** Seconds a life may take, when a shorter (or longer) limit is wanted. */
export const RESTATE_LIFE_TIMEOUT_VARIABLE = 'KILLPOINT_RESTATE_LIFE_TIMEOUT_S';

/** The handler every run's service has; the agent is its body. */
export const HANDLER = 'run';

/** The shared handler killpoint adds to a user's workflow: it resolves the durable promise it is named (`{ name, value }`). */
export const RESOLVE_PROMISE_HANDLER = 'killpoint_resolve_promise';

/**
 * A run's own names in the session's server, the same in every life of the run: its service (a
 * name of its own, so that side-by-side runs never take each other's invocations), the port it
 * listens on (the server calls the deployment where it was registered), and the run's key, which
 * is the invocation's idempotency key and seeds the broken variant's random keys.
 */
export interface RunIdentity {
  serviceName: string;
  servicePort: number;
  runKey: string;
}

export interface RestateRunSpec {
  scenario: SerializedScenario;
  config: RestateConfig;
  ingressUrl: string;
  adminUrl: string;
  run: RunIdentity;
}

export const RESTATE_STATE_FILES = { shop: 'shop.sqlite', outbox: 'outbox.jsonl', identity: 'identity.json' } as const;

/**
 * The server's retry policy for every run's invocations: a killed service's invocation is retried
 * every few tens of ms, so the next life's service is called as soon as it listens, and a bounded
 * number of times (about a minute of attempts): an invocation that keeps failing is killed, its
 * failure the life's error, never paused and waited on in silence.
 */
export const RETRY_POLICY = { initialInterval: 20, maxInterval: 50, exponentiationFactor: 1.5, maxAttempts: 1200, onMaxAttempts: 'kill' } as const;
