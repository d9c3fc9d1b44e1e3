// @mastra/core requires Node 22.13 or later (its package.json's engines): on an older Node it
// fails in ways that name neither (a missing global, a syntax error deep in a bundle). Asked before
// any system is made, so that `--engine mastra` on an older Node is one line of bad input.

import { SystemInputError } from '../../engine.js';

export const MASTRA_NODE = { major: 22, minor: 13 } as const;

/** Whether this Node can run Mastra. */
export function nodeRunsMastra(version: string = process.versions.node): boolean {
  const [major, minor] = version.split('.').map(Number) as [number, number];
  return major > MASTRA_NODE.major || (major === MASTRA_NODE.major && minor >= MASTRA_NODE.minor);
}

export function requireMastraNode(): void {
  if (!nodeRunsMastra()) throw new SystemInputError(`mastra: @mastra/core needs Node ${MASTRA_NODE.major}.${MASTRA_NODE.minor} or later; this is Node ${process.versions.node}`);
}
