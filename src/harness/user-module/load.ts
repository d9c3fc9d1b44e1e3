// Loading a user's module inside a life and calling its exports: TypeScript with no build step
// (tsx's loader, registered in that process only), and every way it can fail named as bad input.

import { pathToFileURL } from 'node:url';
import { UserModuleSetupError } from './setup-error.js';

/** The module at `file` (`arg`: as the user named it, for messages). */
export async function loadUserModule(file: string, arg: string): Promise<Record<string, unknown>> {
  if (/\.[mc]?tsx?$/.test(file)) (await import('tsx/esm/api')).register();
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && e.message.includes(file)) throw new UserModuleSetupError(`${arg}: no such module`);
    throw new UserModuleSetupError(`${arg}: the module failed to load: ${firstLine(e.message ?? String(error))}`);
  }
}

/** What a bundled child hands a life: the module it imported, or why importing it failed. */
export interface BundledModule {
  module?: Record<string, unknown>;
  failure?: unknown;
}

/** The module the bundled child loaded, or (unbundled) the module loaded now; either failure named as bad input. */
export async function moduleOfLife(bundled: BundledModule | undefined, file: string, arg: string): Promise<Record<string, unknown>> {
  if (bundled === undefined) return loadUserModule(file, arg);
  if (bundled.module !== undefined) return bundled.module;
  const e = bundled.failure as Error | undefined;
  throw new UserModuleSetupError(`${arg}: the module failed to load: ${firstLine(e?.message ?? String(e))}`);
}

/** The exported function `name`, or bad input naming it and the functions the module does export. */
export function exportedFunction(module: Record<string, unknown>, name: string, arg: string): (ctx: unknown) => unknown {
  const value = module[name];
  if (typeof value === 'function') return value as (ctx: unknown) => unknown;
  const found = Object.keys(module).filter((k) => typeof module[k] === 'function');
  const said = value === undefined ? 'does not export' : `exports a ${typeof value} as`;
  throw new UserModuleSetupError(`${arg} ${said} ${name}(ctx) (its functions: ${found.length > 0 ? found.join(', ') : 'none'})`);
}

/** The name every module's effects are read by, when the user names no other (--effects-export). */
export const DEFAULT_READ_EFFECTS = 'readEffects';

/**
 * The export that reads the module's effects. A module need not have one under its default name:
 * the writes its services committed (its traffic played by killpoint) are its effects then; one
 * named by --effects-export must be there.
 */
export function effectsReader(module: Record<string, unknown>, name: string, arg: string): (ctx: unknown) => unknown {
  if (name === DEFAULT_READ_EFFECTS && module[name] === undefined) return () => [];
  return exportedFunction(module, name, arg);
}

/** A call of the user's export that throws is a set-up killpoint cannot check, named by the export. */
export async function userCall(call: () => unknown, exportName: string): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    throw new UserModuleSetupError(`${exportName}(ctx) threw: ${firstLine((error as Error)?.message ?? String(error))}`);
  }
}

export function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
