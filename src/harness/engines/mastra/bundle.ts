// The Mastra child, compiled once into one file (see src/harness/process/child-bundle.ts). Packages
// stay in node_modules: @mastra/libsql loads libSQL's native client, and @mastra/core loads parts
// of itself only when asked.

import { childBundle } from '../../process/child-bundle.js';
import { siblingModule } from '../../process/package-paths.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

export function mastraChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'external' });
}
