// What the Restate engine needs installed, found the way Node would find it from killpoint's code:
// the server binary (the platform package of @restatedev/restate-server ships it) and the SDK the
// children load. Either missing is bad input that names the package to install (exit 2). A
// test, or a user with a server binary of their own, names it in KILLPOINT_RESTATE_SERVER.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ProtocolError } from '../../process/protocol.js';

/** Names a restate-server binary to use instead of the installed package's. */
export const RESTATE_SERVER_VARIABLE = 'KILLPOINT_RESTATE_SERVER';

export const SDK_PACKAGE = '@restatedev/restate-sdk';
export const SERVER_PACKAGE = '@restatedev/restate-server';

/** The package that carries the binary for this machine (the server package's optional dependency). */
function platformPackage(): string {
  return `${SERVER_PACKAGE}-${process.platform}-${process.arch}`;
}

const requireHere = createRequire(import.meta.url);

/** The package's folder in the first node_modules Node would look in that holds it (whatever its exports allow). */
function installedDir(pkg: string): string | null {
  for (const modules of requireHere.resolve.paths(pkg) ?? []) {
    const dir = join(modules, pkg);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  return null;
}

/** The restate-server binary to start; a ProtocolError naming what to install when there is none. */
export function restateServerBinary(): string {
  const given = process.env[RESTATE_SERVER_VARIABLE];
  if (given !== undefined && given !== '') {
    if (!existsSync(given)) throw new ProtocolError(`restate: ${RESTATE_SERVER_VARIABLE}=${given}: no such file; point it at a restate-server binary, or unset it to use the one of ${SERVER_PACKAGE}`);
    return given;
  }
  const dir = installedDir(platformPackage());
  const binary = dir === null ? null : join(dir, 'bin', 'restate-server');
  if (binary === null || !existsSync(binary)) {
    throw new ProtocolError(`restate: no restate-server binary: install ${SERVER_PACKAGE} (npm install --save-dev ${SERVER_PACKAGE}; its binary comes in ${platformPackage()}), or set ${RESTATE_SERVER_VARIABLE} to a restate-server binary`);
  }
  return binary;
}

/** Throws a ProtocolError naming the SDK package when the children could not load it. */
export function requireRestateSdk(): void {
  if (installedDir(SDK_PACKAGE) === null) throw new ProtocolError(`restate: the Restate SDK is not installed: install ${SDK_PACKAGE} (npm install --save-dev ${SDK_PACKAGE})`);
}

/** What the ai-middleware systems load beside the SDK: Restate's AI SDK middleware, the AI SDK, the middleware's serializer. */
export const AI_MIDDLEWARE_PACKAGES = ['@restatedev/vercel-ai-middleware', 'ai', 'superjson'] as const;

/** Throws a ProtocolError naming every package of the ai-middleware systems that is not installed (`installed` answers for one). */
export function requireAiMiddleware(installed: (pkg: string) => boolean = (pkg) => installedDir(pkg) !== null): void {
  const missing = AI_MIDDLEWARE_PACKAGES.filter((pkg) => !installed(pkg));
  if (missing.length > 0) throw new ProtocolError(`restate: the ai-middleware systems need ${missing.join(', ')}: install ${missing.length === 1 ? 'it' : 'them'} (npm install --save-dev ${missing.join(' ')})`);
}
