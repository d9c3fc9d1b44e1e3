// Whose call it is: the stack frame of the code that called `asked` (a Date or random function
// killpoint put in place), one frame captured, so that the agent's own code and an installed
// package's can be told apart by the file they stand in (life-clock.ts, seeded-randomness.ts).

/** The caller's frame line (`at f (/path/file.js:1:2)`), or '' where the stack has none. */
export function callerFrame(asked: (...args: never[]) => unknown): string {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  Error.captureStackTrace(holder, asked);
  Error.stackTraceLimit = limit;
  return holder.stack?.split('\n')[1] ?? '';
}
