// Output stops early when its reader goes away (`killpoint check | head -1`): between units of
// work a command gives the event loop a turn, so that the pipe's EPIPE is seen (the killpoint
// command then exits quietly, see bin/killpoint.mjs), and it stops if stdout is gone. An
// in-process exploration never waits on anything else, so without this turn it would run to its end.
// stdout that fails otherwise (a full disk) is no reader's choice: the command ends with exit 2.

/** One turn of the event loop: pending I/O events (a closed pipe among them) are handled. */
export function yieldToReader(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** True once stdout cannot be written to any more (its reader closed the pipe). */
export function readerGone(stream: NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean } = process.stdout): boolean {
  return stream.destroyed === true || stream.writableEnded === true;
}

/** Streams already watched by exitWhenStdoutFails (main may run more than once in a process). */
const watched = new WeakSet<NodeJS.WriteStream>();

/**
 * stdout that fails for a reason other than a reader gone away (a full disk, ENOSPC; a device
 * error, EIO) ends the command at once: one line on stderr and exit 2. The report was never
 * delivered, so no verdict stands, and a stack trace from deep inside console.log tells the user
 * nothing. The listener goes first, ahead of any that would rethrow the error; EPIPE is left to
 * those that end quietly.
 */
export function exitWhenStdoutFails(stream: NodeJS.WriteStream = process.stdout): void {
  if (watched.has(stream)) return;
  watched.add(stream);
  stream.prependListener('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') return;
    process.stderr.write(`killpoint: cannot write stdout (${error.code ?? error.message})\n`);
    process.exit(2);
  });
}
