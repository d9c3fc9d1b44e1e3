#!/usr/bin/env node
// The killpoint command. The sources are TypeScript; tsx loads them without a build step.
import { register } from 'tsx/esm/api';

// A reader that stops early (`killpoint check | head`) is not an error of ours: stop writing quietly.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
