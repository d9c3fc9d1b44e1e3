#!/usr/bin/env node
// The killpoint command. The sources are TypeScript; tsx loads them without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/harness/cli.ts');
process.exitCode = await main(process.argv.slice(2));
