// The interception a Node agent behind the kill protocol loads first (agent-preload.ts), compiled
// once into one file (process/child-bundle.ts), and the NODE_OPTIONS that load it.

import { pathToFileURL } from 'node:url';
import { childBundle } from '../process/child-bundle.js';
import { siblingModule } from '../process/package-paths.js';

const PRELOAD_ENTRY = siblingModule(import.meta.url, 'agent-preload');

/** NODE_OPTIONS with the interception loaded before the agent's code, after what the user set. */
export async function nodeOptionsWithPreload(userOptions: string | undefined): Promise<string> {
  const bundle = await childBundle({ entry: PRELOAD_ENTRY, packages: 'external' });
  const own = `--import ${JSON.stringify(pathToFileURL(bundle).href)}`;
  return userOptions === undefined || userOptions.trim() === '' ? own : `${userOptions} ${own}`;
}
