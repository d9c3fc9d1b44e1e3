#!/usr/bin/env node
// The killpoint command. In a clone of the repository the TypeScript sources run through tsx (no
// build step); installed from the package, the compiled JavaScript in dist/ runs (no tsx needed).
import { existsSync } from 'node:fs';

// Ctrl-C while the command loads (a second or two through tsx) ends it with a line too. Once loaded,
// the command's own handlers (src/harness/process/processes.ts) take over: added before this one is
// removed, so that at no moment does a signal find no listener, or one removed before it heard it.
function interruptedWhileLoading(signal) {
  process.stderr.write(`\nkillpoint: interrupted (${signal}) while loading; nothing was started\n`);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
}
process.on('SIGINT', interruptedWhileLoading);
process.on('SIGTERM', interruptedWhileLoading);

// A reader that stops early (`killpoint check | head`) is not an error of ours: stop writing quietly.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const fromSources = existsSync(new URL('../src/harness/cli/main.ts', import.meta.url));
let main;
let interruptibleUntilExit;
if (fromSources) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main, interruptibleUntilExit } = await import('../src/harness/cli/main.ts'));
} else {
  ({ main, interruptibleUntilExit } = await import('../dist/harness/cli/main.js'));
}
interruptibleUntilExit();
process.off('SIGINT', interruptedWhileLoading);
process.off('SIGTERM', interruptedWhileLoading);
process.exitCode = await main(process.argv.slice(2));
// The verdict is out. A module under check may have left a handle open that nothing of ours can
// close (a server it starts as it loads: restate.serve(), app.listen): the process ends anyway,
// with the command's status. Unref'd, the timer never keeps it alive: a process with nothing left
// ends at once, and one second lets ours finish closing (PGlite stops 0.3 s after its last session).
setTimeout(() => process.exit(), 1_000).unref();
