// What a life asks the session's server over HTTP: to register the run's service (once per run),
// to start the run's invocation (once per run: the run's key is its idempotency key, so a later
// life gets the same invocation back), and for the invocation's output. Every request has a time
// limit; an invocation that does not end within its limit is reported with the state the server
// keeps of it (backing off, paused, how many attempts, its last failure), never waited on forever.

import type { Conversation } from '../../../model/conversation.js';
import { HANDLER, RESOLVE_PROMISE_HANDLER, type RunIdentity } from './run-spec.js';
import { requestJson } from './wait.js';

/** What the agent's handler returns. */
export interface AgentOutput {
  answer: string;
  conversation: Conversation;
}

/** A registration or a send takes tens of ms; one that takes this long is a server not answering. */
const REQUEST_MS = 15_000;
/** Seconds to wait for an invocation's output (a bundled task takes well under one). */
export const ATTACH_TIMEOUT_VARIABLE = 'KILLPOINT_RESTATE_ATTACH_TIMEOUT_S';
const DEFAULT_ATTACH_MS = 90_000;

function attachTimeoutMs(): number {
  const seconds = Number(process.env[ATTACH_TIMEOUT_VARIABLE] ?? '');
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_ATTACH_MS;
}

/** Registers the run's service unless the server knows it (a run's later lives find it known). */
export async function registerUnlessKnown(adminUrl: string, run: RunIdentity): Promise<void> {
  const response = await fetch(`${adminUrl}/services/${encodeURIComponent(run.serviceName)}`, { signal: AbortSignal.timeout(REQUEST_MS) });
  await response.arrayBuffer();
  if (response.ok) return;
  await requestJson(`${adminUrl}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: `http://127.0.0.1:${run.servicePort}` }),
    timeoutMs: REQUEST_MS,
    what: `restate: registering ${run.serviceName} at port ${run.servicePort}`,
  });
}

/**
 * Starts the run's invocation of `handler` with `input` (the bundled agent's: the customer's
 * message), or finds the one started already (same idempotency key, or a workflow's same key): its id.
 */
export async function sendOnce(ingressUrl: string, run: RunIdentity, input: unknown, handler = HANDLER, workflowKey?: string): Promise<string> {
  // A workflow runs once per key: a second send of the key answers the same invocation.
  const path = workflowKey === undefined ? `${encodeURIComponent(run.serviceName)}/${encodeURIComponent(handler)}` : `${encodeURIComponent(run.serviceName)}/${encodeURIComponent(workflowKey)}/${encodeURIComponent(handler)}`;
  const { body } = await requestJson(`${ingressUrl}/${path}/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(workflowKey === undefined ? { 'idempotency-key': run.runKey } : {}) },
    body: JSON.stringify(input),
    timeoutMs: REQUEST_MS,
    what: `restate: sending the invocation of ${run.serviceName}`,
  });
  const id = (body as { invocationId?: unknown } | null)?.invocationId;
  if (typeof id !== 'string') throw new Error(`restate: the send of ${run.serviceName} answered no invocation id: ${JSON.stringify(body)}`);
  return id;
}

/** The server's words for an invocation: its status, attempts and last failure, as one line. */
async function invocationState(adminUrl: string, invocationId: string): Promise<string> {
  try {
    const { body } = await requestJson(`${adminUrl}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: `SELECT status, retry_count, last_failure FROM sys_invocation WHERE id = '${invocationId.replaceAll("'", "''")}'` }),
      timeoutMs: REQUEST_MS,
      what: 'restate: asking for the invocation state',
    });
    const row = (body as { rows?: Record<string, unknown>[] } | null)?.rows?.[0];
    if (row === undefined) return 'the server has no such invocation';
    return `status ${String(row.status)}, ${String(row.retry_count)} retries${row.last_failure ? `, last failure: ${String(row.last_failure)}` : ''}`;
  } catch (error) {
    return `its state could not be read (${(error as Error).message})`;
  }
}

/**
 * The invocation's output, once recorded. A failed invocation is the life's error: a conversation
 * the model rejected keeps its name (the protocol's failed life), any other is a crash of the life,
 * judged as a verdict.
 */
export async function invocationOutput(ingressUrl: string, adminUrl: string, invocationId: string): Promise<AgentOutput> {
  return (await invocationResult(ingressUrl, adminUrl, invocationId)) as AgentOutput;
}

/** The invocation's recorded output, whatever its handler returns (see invocationOutput). */
export async function invocationResult(ingressUrl: string, adminUrl: string, invocationId: string): Promise<unknown> {
  const limit = attachTimeoutMs();
  let response: Response;
  let text: string;
  try {
    response = await fetch(`${ingressUrl}/restate/invocation/${encodeURIComponent(invocationId)}/attach`, { signal: AbortSignal.timeout(limit) });
    text = await response.text();
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    throw new Error(`restate: invocation ${invocationId} did not end within ${limit / 1000} s (${ATTACH_TIMEOUT_VARIABLE} sets the limit): ${await invocationState(adminUrl, invocationId)}`);
  }
  // A handler that returns nothing answers an empty body.
  if (response.ok) return text === '' ? undefined : (JSON.parse(text) as unknown);
  let message = text;
  try {
    message = String((JSON.parse(text) as { message?: unknown }).message ?? text);
  } catch {
    // not JSON: the text as it is
  }
  const rejected = /ConversationRejected: (.*)$/s.exec(message);
  if (rejected !== null) {
    const error = new Error(rejected[1]);
    error.name = 'ConversationRejected';
    throw error;
  }
  throw new InvocationFailed(`restate: invocation ${invocationId} failed (HTTP ${response.status}): ${message}`, message, text);
}

/**
 * An invocation that Restate ended in failure: its handler threw a TerminalError (a saga's end,
 * after its compensations), or its attempts ran out. `failure` is Restate's message for it, `body`
 * the answer as it came.
 */
export class InvocationFailed extends Error {
  constructor(
    message: string,
    readonly failure: string,
    readonly body: string,
  ) {
    super(message);
    this.name = 'InvocationFailed';
  }
}

/**
 * Resolves an awakeable with `value`, as the outside world does, through the ingress. The server
 * keeps it for the invocation whether or not a service of it runs (a resolve made while the
 * service is killed is there for the recovery), and answers 202 to every resolve of an id it
 * knows: a second one, or one after the invocation ended, is dropped (the first value stays).
 */
export async function resolveAwakeable(ingressUrl: string, awakeableId: string, value: unknown): Promise<void> {
  await requestJson(`${ingressUrl}/restate/awakeables/${encodeURIComponent(awakeableId)}/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value ?? null),
    timeoutMs: REQUEST_MS,
    what: `restate: resolving the awakeable ${awakeableId}`,
  });
}

/**
 * Resolves the durable promise `name` of the run's workflow (its key is the run's) through killpoint's
 * shared handler of it (module/definition.ts), as the outside world does through one of the
 * workflow's own: answered once the promise holds the value.
 */
export async function resolveDurablePromise(ingressUrl: string, run: RunIdentity, name: string, value: unknown): Promise<void> {
  await requestJson(`${ingressUrl}/${encodeURIComponent(run.serviceName)}/${encodeURIComponent(run.runKey)}/${RESOLVE_PROMISE_HANDLER}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name, value: value ?? null }),
    timeoutMs: REQUEST_MS,
    what: `restate: resolving the durable promise ${name}`,
  });
}
