// One life of a user's Restate service, inside its own process: the user's module (loaded by the
// bundled child, or here through tsx) defines the service; killpoint serves it under the run's own
// service name on the run's port, registers it with the session's server unless the server knows
// it, sends the invocation of its handler with the run's key as its idempotency key (a later life
// gets the same invocation back), waits for its output, and reads back what the run did. The
// server retries an invocation whose service was killed: the next life's service is called, the
// journal replayed, and the steps it does not hold run again.
//
// What killpoint sees of the service without touching its code: the handler is given a context
// whose `run` is killpoint's. Each ctx.run call is numbered in the order the handler makes it (the
// journal's order: the same in every attempt); its closure is wrapped, so that its start and its
// return are events (run-start, run-return: Restate calls a closure only for a step its journal
// does not hold), and its promise is mapped, so that its journal entry is one (step-recorded, once
// the server has acknowledged it). Steps side by side (RestatePromise.all) go through the batch
// gate: one closure runs at a time, in the order the interleaving picks choose. Its `awakeable` is
// killpoint's too: a handler that awaits one waits for the outside world, and the life hands it its
// turn from --resume and resolves it through the ingress; a workflow's `promise` is too, resolved
// through a shared handler killpoint adds to the workflow (waits.ts, definition.ts). Its `sleep` is
// killpoint's: the timer is due at once, the life's clock moved by the sleep (sleeps.ts).
//
// What killpoint changes of the service: its name (the run's own, so that runs side by side in one
// server never take each other's invocations), its retry policy (a recovery starts within tens of
// milliseconds, and the attempts are bounded), and its handlers' own options (the handler is
// re-declared around the user's function, with the service's).

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as restate from '@restatedev/restate-sdk';
import { BatchGate } from '../../../interleaving.js';
import type { EmitEvent } from '../../../process/child-main.js';
import { effectsReader, exportedFunction, moduleOfLife, userCall, type BundledModule } from '../../../user-module/load.js';
import { effectRecords } from '../../../user-module/effects.js';
import { runAndReadBack } from '../../../user-module/stores.js';
import { SecondDelivery } from '../../../user-module/second-delivery.js';
import { Turns } from '../../../user-module/turns.js';
import { InvocationFailed, invocationResult, registerUnlessKnown, resolveAwakeable, resolveDurablePromise, sendOnce } from '../client.js';
import { contextWithRun } from '../context-with-run.js';
import { definitionOf, handlerOf, redeclared } from './definition.js';
import { OutsideWaits } from './waits.js';
import { sleepOnLifeClock } from './sleeps.js';
import { currentLifeTime } from '../../../user-module/life-clock.js';
import { RESTATE_MODULE_FILES, type RestateModuleContext, type RestateModuleRunFile, type RestateModuleSpec } from './spec.js';
// The kinds this life emits (run-start, run-return, invocation-done), known where they are labelled.
import '../event-kinds.js';

export interface RestateModuleLifeInputs {
  spec: RestateModuleRunFile;
  /** The module as the bundled child loaded it (or why it failed to load); absent, the life loads it (through tsx). */
  loaded?: BundledModule;
  stateDir: string;
  /** The life's number in its run (0: the life that starts it, whose waits without a turn are bad input). */
  lifeIndex: number;
  picks: number[];
  emit: EmitEvent;
  onPick: (pick: number, width: number) => void;
  /**
   * Serves the service on the run's port; by default restate.serve, for the life of the process.
   * A life run inside killpoint's process serves it on an endpoint its fence tears down at the
   * kill point instead (../in-process-life.ts).
   */
  serve?: (service: restate.ServiceDefinition<string, unknown>, port: number) => Promise<void>;
}

type RunCall = (nameOrAction: unknown, action?: unknown, options?: unknown) => restate.RestatePromise<unknown>;

/**
 * The handler invoked, named as Restate's ingress names it (`service/handler`; a workflow's is
 * `run`): what a report names the task by (user-module/task-name.ts).
 */
export async function restateHandlerName({ spec, loaded, dataDir }: { spec: RestateModuleSpec; loaded?: BundledModule; dataDir: string }): Promise<string> {
  const module = await moduleOfLife(loaded, spec.module, spec.moduleArg);
  const createService = exportedFunction(module, spec.serviceExport, spec.moduleArg);
  const definition = definitionOf(await userCall(() => createService({ dataDir } satisfies RestateModuleContext), spec.serviceExport), spec.serviceExport);
  return `${definition.name}/${handlerOf(definition, spec.handler)[0]}`;
}

/** Runs the life to its end; a service has no conversation of its own. */
export async function runRestateModuleLife(inputs: RestateModuleLifeInputs): Promise<null> {
  const { spec, stateDir, emit } = inputs;
  const module = await moduleOfLife(inputs.loaded, spec.module, spec.moduleArg);
  const createService = exportedFunction(module, spec.serviceExport, spec.moduleArg);
  const readEffects = effectsReader(module, spec.effectsExport, spec.moduleArg);
  const dataDir = join(stateDir, RESTATE_MODULE_FILES.data);
  mkdirSync(dataDir, { recursive: true });
  const ctx: RestateModuleContext = { dataDir };
  const definition = definitionOf(await userCall(() => createService(ctx), spec.serviceExport), spec.serviceExport);
  const [handlerName, handler] = handlerOf(definition, spec.handler);

  const gate = new BatchGate(inputs.picks, inputs.onPick);
  const turns = new Turns(stateDir, spec.resume, inputs.lifeIndex === 0);
  const workflowKey = definition.kind === 'workflow' ? spec.run.runKey : undefined;
  const waits = new OutsideWaits({
    turns,
    handler: handlerName,
    emit,
    effectsDone: async () => effectRecords(await userCall(() => readEffects(ctx), spec.effectsExport), spec.effectsExport).length,
    resolveAwakeable: (awakeableId, value) => resolveAwakeable(spec.ingressUrl, awakeableId, value),
    resolvePromise: (name, value) => resolveDurablePromise(spec.ingressUrl, spec.run, name, value),
    resolvedFile: join(stateDir, RESTATE_MODULE_FILES.resolved),
  });
  /** The attempt running: a new attempt in the same process (the server may retry one) numbers its steps afresh. */
  let attempt = 0;
  /** The life's clock, which its sleeps move (sleeps.ts). */
  const clock = currentLifeTime();

  const observed = (rctx: restate.Context): restate.Context => {
    const mine = ++attempt;
    let calls = 0;
    const run: RunCall = (nameOrAction, second, options) => {
      const named = typeof nameOrAction === 'string';
      const name = named ? nameOrAction : '';
      const action = (named ? second : nameOrAction) as () => Promise<unknown>;
      const step = calls++;
      // Ids that sort in call order: where the picks run out, the first called goes first.
      const id = `attempt-${mine}-step-${String(step).padStart(6, '0')}`;
      gate.expect([id]);
      let ran = false;
      const wrapped = async (): Promise<unknown> => {
        await gate.pass(id);
        ran = true;
        emit({ kind: 'run-start', step, stepName: name });
        const result = await action();
        emit({ kind: 'run-return', step, stepName: name });
        return result;
      };
      const running = (rctx.run as unknown as RunCall).call(rctx, name, wrapped, named ? options : second);
      // Mapped when the server has acknowledged the step's journal entry (or the journal held it).
      return running.map((value, failure) => {
        gate.finish(id);
        if (failure !== undefined) throw failure;
        if (ran) emit({ kind: 'step-recorded', step, stepName: name });
        return value;
      });
    };
    const promise = workflowKey === undefined ? {} : { promise: waits.promiseOf(rctx as restate.WorkflowContext) };
    return contextWithRun(rctx, run, { awakeable: waits.awakeableOf(rctx), sleep: sleepOnLifeClock(rctx, clock, emit), ...promise });
  };

  const service = redeclared(definition, spec.run.serviceName, handlerName, (rctx: restate.Context, input: unknown) => handler(observed(rctx), input));
  if (inputs.serve !== undefined) await inputs.serve(service, spec.run.servicePort);
  else await restate.serve({ services: [service], port: spec.run.servicePort, logger: () => {} });
  await registerUnlessKnown(spec.adminUrl, spec.run);
  const second = new SecondDelivery(turns, emit);
  const again = await second.take();
  if (again !== undefined) await waits.resolveAgain(again.id, again.value);
  const invocationId = await sendOnce(spec.ingressUrl, spec.run, spec.input, handlerName, workflowKey);

  const done = runAndReadBack({
    stateDir,
    readEffects: () => readEffects(ctx),
    effectsExport: spec.effectsExport,
    output: async () => {
      const output = await invocationResult(spec.ingressUrl, spec.adminUrl, invocationId);
      // The invocation ended: its last turn is acknowledged, and what the second delivery did is said.
      turns.acknowledge();
      await second.ended();
      return output;
    },
    recorded: () => emit({ kind: 'invocation-done' }),
    // Restate ends an invocation in failure only for good: its handler threw a TerminalError.
    endedInError: (error) => (error instanceof InvocationFailed ? `ended in error: ${error.failure}` : undefined),
  });
  // A wait whose turn cannot be handed ends the life: the invocation would wait for it forever.
  await Promise.race([done, waits.failure]);
  turns.mustAllBeHanded();
  return null;
}
