// Whether a line rewritten in place (a progress line, what the lives wait on) is for a person to
// see: only at a terminal, so that CI logs, `2> log` and --json stay as they are;
// KILLPOINT_PROGRESS=1 asks for it anyway, KILLPOINT_PROGRESS=0 never. Read by the command line's
// progress (cli/progress.ts) and by the traffic's waits (traffic/waiting.ts) alike.

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export function wantsProgress(stream: ProgressStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.KILLPOINT_PROGRESS === '0') return false;
  return env.KILLPOINT_PROGRESS === '1' || stream.isTTY === true;
}
