// What a user's createService(ctx) returned, as killpoint serves it: a service (restate.service),
// whose handler invoked is its only one or --handler, or a workflow (restate.workflow), whose `run`
// is invoked once per run under the run's key and whose shared handlers are served as they are.
// Either is declared again under the run's own name with killpoint's retry policy, the handler
// invoked wrapped so that killpoint observes its context; a workflow gets one shared handler of
// killpoint's beside its own, through which the life resolves the run's durable promises as the
// outside world would (module/waits.ts). A virtual object is refused.

import * as restate from '@restatedev/restate-sdk';
import { UserModuleSetupError } from '../../../user-module/setup-error.js';
import { RESOLVE_PROMISE_HANDLER, RETRY_POLICY } from '../run-spec.js';

export type Handler = (ctx: restate.Context, input: unknown) => Promise<unknown>;

export interface UserDefinition {
  name: string;
  kind: 'service' | 'workflow';
  handlers: Record<string, unknown>;
  options?: Record<string, unknown>;
}

/** What restate.service / restate.workflow returned: its name, its handlers by name, its kind. */
interface Returned {
  name?: unknown;
  service?: Record<string, unknown>;
  workflow?: Record<string, unknown>;
  options?: Record<string, unknown>;
  _kind?: string;
}

/** The service or workflow createService(ctx) returned, or bad input saying what it returned instead. */
export function definitionOf(value: unknown, exportName: string): UserDefinition {
  const d = value as Returned | null;
  const handlers = typeof d === 'object' && d !== null ? (d._kind === 'workflow' ? d.workflow : d.service) : undefined;
  if (typeof d !== 'object' || d === null || typeof d.name !== 'string' || typeof handlers !== 'object' || handlers === null) {
    throw new UserModuleSetupError(`${exportName}(ctx) returned ${d === null ? 'null' : typeof d}: expected the service restate.service({ name, handlers }) returned`);
  }
  if (d._kind !== undefined && d._kind !== 'service' && d._kind !== 'workflow') throw new UserModuleSetupError(`${exportName}(ctx) returned a Restate ${d._kind === 'object' ? 'virtual object' : d._kind}: killpoint checks a service (restate.service) or a workflow (restate.workflow)`);
  return { name: d.name, kind: d._kind === 'workflow' ? 'workflow' : 'service', handlers, ...(d.options === undefined ? {} : { options: d.options }) };
}

/** The handler invoked: a workflow's run; the one asked for, or the service's only one. */
export function handlerOf(definition: UserDefinition, asked: string | undefined): [string, Handler] {
  const names = Object.keys(definition.handlers);
  if (definition.kind === 'workflow' && asked !== undefined && asked !== 'run') throw new UserModuleSetupError(`--handler ${asked}: workflow ${definition.name} is invoked through its run handler (its other handlers are shared ones, called while it runs)`);
  const name = definition.kind === 'workflow' ? 'run' : (asked ?? (names.length === 1 ? names[0]! : undefined));
  if (name === undefined) throw new UserModuleSetupError(`service ${definition.name} has ${names.length === 0 ? 'no handlers' : `the handlers ${names.join(', ')}`}: name the one to invoke with --handler`);
  const handler = definition.handlers[name];
  if (typeof handler !== 'function') throw new UserModuleSetupError(`${definition.kind} ${definition.name} has no handler ${name} (its handlers: ${names.join(', ') || 'none'})`);
  return [name, handler as Handler];
}

/** The definition declared again under the run's name, its invoked handler `wrapped`; the server's retries are killpoint's. */
export function redeclared(definition: UserDefinition, name: string, handlerName: string, wrapped: Handler): restate.ServiceDefinition<string, unknown> {
  const options = { ...definition.options, retryPolicy: RETRY_POLICY };
  if (definition.kind === 'service') return restate.service({ name, handlers: { [handlerName]: wrapped }, options });
  const resolvePromise = restate.handlers.workflow.shared(async (ctx: restate.WorkflowSharedContext, request: { name: string; value: unknown }) => {
    await ctx.promise(request.name).resolve(request.value);
  });
  const workflow = restate.workflow({ name, handlers: { ...(definition.handlers as Record<string, never>), run: wrapped, [RESOLVE_PROMISE_HANDLER]: resolvePromise }, options });
  return workflow as unknown as restate.ServiceDefinition<string, unknown>;
}
