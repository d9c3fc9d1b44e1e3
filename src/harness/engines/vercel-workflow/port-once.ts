// The SDK asks for the port its workflow server listens on at every invocation of the workflow and
// at every step (for the run's base URL). It keeps only a port it found, and a life listens on
// none, so every ask ran the whole discovery again: a full process report, then a walk of the
// process's descriptors and /proc/net/tcp (a sixth of the CPU of a one-kill check of Dana's
// task). Nothing in a life ever listens, so its answer cannot change: the discovery runs once and
// its answer is pinned. The URL stays the SDK's own default, http://localhost:3000, as it was.
//
// The pin goes through the seam @workflow/core keeps for its own tests (setPortResolverForTesting
// of runtime/get-port-lazy.js, which its package does not export: it is reached by its file, the
// same module the SDK imports; killpoint's own child, one bundle, is handed the bundled copy).
// An SDK without it is left as it is: slower, and the same.

import { fileURLToPath, pathToFileURL } from 'node:url';

interface PortLazyModule {
  setPortResolverForTesting?: (resolver: () => Promise<number | undefined>) => void;
}

interface GetPortModule {
  getPort: () => Promise<number | undefined>;
}

let pinned: Promise<void> | undefined;

/** Makes the SDK discover its port once in this process, with the answer the discovery gives. */
export function discoverPortOnce(): Promise<void> {
  pinned ??= pinFromNodeModules();
  return pinned;
}

/** The same, with the SDK's modules at hand (the bundled child's copies). */
export function pinPortDiscovery(portLazy: PortLazyModule, discovery: GetPortModule): void {
  pinned = Promise.resolve();
  if (typeof portLazy.setPortResolverForTesting !== 'function' || typeof discovery.getPort !== 'function') return;
  let answer: Promise<number | undefined> | undefined;
  portLazy.setPortResolverForTesting(() => (answer ??= discovery.getPort()));
}

/** The file of the SDK's port cache, which its package does not export. */
export function portLazyFile(): string {
  return fileURLToPath(new URL('./runtime/get-port-lazy.js', import.meta.resolve('@workflow/core')));
}

async function pinFromNodeModules(): Promise<void> {
  try {
    const portLazy = (await import(pathToFileURL(portLazyFile()).href)) as PortLazyModule;
    const discovery = (await import('@workflow/utils/get-port')) as GetPortModule;
    pinPortDiscovery(portLazy, discovery);
  } catch {
    // Another SDK: it discovers the port as it always did.
  }
}
