// Output stops early when its reader goes away (`killpoint check | head -1`): between units of
// work a command gives the event loop a turn, so that the pipe's EPIPE is seen (the killpoint
// command then exits quietly, see bin/killpoint.mjs), and it stops if stdout is gone. An
// in-process exploration never waits on anything else, so without this turn it would run to its end.

/** One turn of the event loop: pending I/O events (a closed pipe among them) are handled. */
export function yieldToReader(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** True once stdout cannot be written to any more (its reader closed the pipe). */
export function readerGone(stream: NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean } = process.stdout): boolean {
  return stream.destroyed === true || stream.writableEnded === true;
}
