// The child, compiled once into one file (src/harness/process/child-bundle.ts). Packages stay in
// node_modules: the child loads the Workflow SDK from there, the same copy the built workflow and
// step bundles import (its runtime keeps the world in module state they share).

import { childBundle } from '../../process/child-bundle.js';
import { siblingModule } from '../../process/package-paths.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

export function vercelChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'external' });
}
