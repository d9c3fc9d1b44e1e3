// The DBOS child, compiled once into one file (see src/harness/process/child-bundle.ts). Packages stay in
// node_modules: the SDK requires optional telemetry packages (OpenTelemetry exporters, winston
// transports) only when they are installed, which a bundler cannot leave to run time; DBOS itself
// loads in a few hundred milliseconds.

import { childBundle } from '../../process/child-bundle.js';
import { siblingModule } from '../../process/package-paths.js';

const CHILD_ENTRY = siblingModule(import.meta.url, 'child');

export function dbosChild(): Promise<string> {
  return childBundle({ entry: CHILD_ENTRY, packages: 'external' });
}
