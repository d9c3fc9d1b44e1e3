// The Restate child, compiled once into one file (see src/harness/process/child-bundle.ts).
// Packages stay in node_modules: the SDK loads in a fraction of a second as it is.

import { childBundle } from '../../process/child-bundle.js';
import { siblingModule } from '../../process/package-paths.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

export function restateChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'external' });
}
