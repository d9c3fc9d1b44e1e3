// A user's own Restate service as killpoint checks it: the module that defines the service, the
// input its handler is invoked with, and the exports to call. Shared by the parent and the child;
// imports no Restate.
//
// The module exports
//   createService(ctx)  the service restate.service({ name, handlers }) returned (or a promise of
//                       it); killpoint serves it under a name of the run's own, on its private
//                       server, and invokes its handler (the only one, or `--handler`) once;
//   readEffects(ctx)    the side effects done so far, as records { kind, target?, args? }, read
//                       from wherever the service keeps them (under ctx.dataDir, say).
// `--service-export` and `--effects-export` name other exports.

import type { UserModuleTarget } from '../../../user-module/target.js';
import type { RunIdentity } from '../run-spec.js';

/** What the module's functions are given: the same in every life of a run. */
export interface RestateModuleContext {
  /** A folder of the run's own, kept across its lives, for the service's data. */
  dataDir: string;
}

export interface RestateModuleSpec extends UserModuleTarget {
  serviceExport: string;
  effectsExport: string;
  /** The handler invoked; undefined: the service's only one. */
  handler?: string;
}

/** One life's run file: the spec, the session's server and the run's names there. */
export interface RestateModuleRunFile extends RestateModuleSpec {
  ingressUrl: string;
  adminUrl: string;
  run: RunIdentity;
}

export const DEFAULT_SERVICE_EXPORT = 'createService';
export const DEFAULT_RESTATE_EFFECTS_EXPORT = 'readEffects';

/** Environment variables of the module child, beside the protocol's own. */
export const RESTATE_MODULE_ENV = { run: 'KILLPOINT_RESTATE_MODULE_RUN', picks: 'KILLPOINT_RESTATE_MODULE_PICKS' } as const;

/**
 * The files a run keeps in its state folder: its names in the server, the service's folder, and the
 * awakeables whose resolve the server accepted (module/awakeables.ts).
 */
export const RESTATE_MODULE_FILES = { identity: 'identity.json', data: 'data', resolved: 'killpoint-resolved.json' } as const;
