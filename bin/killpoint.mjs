#!/usr/bin/env node
// The killpoint command. In a clone of the repository the TypeScript sources run through tsx (no
// build step); installed from the package, the compiled JavaScript in dist/ runs (no tsx needed).
import { existsSync } from 'node:fs';

// A reader that stops early (`killpoint check | head`) is not an error of ours: stop writing quietly.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const fromSources = existsSync(new URL('../src/harness/cli/main.ts', import.meta.url));
let main;
if (fromSources) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/harness/cli/main.ts'));
} else {
  ({ main } = await import('../dist/harness/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));
