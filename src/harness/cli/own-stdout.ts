// With --json, stdout is killpoint's alone: a reader parses it whole. The agent under check runs in
// killpoint's own process in the in-process tier (its module loaded here, or on a thread whose
// stdout is piped into this one's), and logs as agents do; while stdout is kept, whatever is
// written to it goes to stderr instead, except what killpoint prints through print().

type Write = typeof process.stdout.write;

export interface KeptStdout {
  /** Prints killpoint's own text on stdout (through console.log, as everything killpoint prints). */
  print(text: string): void;
  /** Gives stdout back as it was. */
  release(): void;
}

export function keepStdout(): KeptStdout {
  const stdout = process.stdout;
  const own = stdout.write;
  let printing = false;
  const kept = function (this: unknown, ...args: Parameters<Write>): boolean {
    return printing ? (own as (...a: unknown[]) => boolean).apply(stdout, args) : (process.stderr.write as (...a: unknown[]) => boolean).apply(process.stderr, args);
  } as Write;
  stdout.write = kept;
  return {
    print(text) {
      printing = true;
      try {
        console.log(text);
      } finally {
        printing = false;
      }
    },
    release() {
      // Only when nothing replaced it since: a later keeper's write stays its own.
      if (stdout.write === kept) stdout.write = own;
    },
  };
}
