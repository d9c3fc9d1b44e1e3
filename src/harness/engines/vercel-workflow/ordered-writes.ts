// The world's event writes one at a time, in an order the run decides. The SDK creates a reply's
// parallel steps together (step_created for each, in Promise.all), so their files are written in
// whatever order the file system finishes them: the events of two runs came out in two orders. The
// life's wrapper of world.events.create hands every write here: writes go one at a time, in the
// order they are asked for, except step creations asked for together (in one turn of the event
// loop), which go in the order of their step ids. The SDK makes step ids in the order the
// workflow called the steps (the same ids at every replay: that is how a replay finds its steps),
// so that is the order of the calls in the workflow's code.

export class OrderedWrites {
  private chain: Promise<unknown> = Promise.resolve();
  private burst: { key: string; start: () => void }[] = [];

  /** Runs `write` after every write asked for before it; a step creation (`stepId` given) waits for the rest of its turn's creations to be sorted with it. */
  write<T>(write: () => Promise<T>, stepId?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = (): void => {
        const done = this.chain.then(write);
        this.chain = done.catch(() => undefined);
        done.then(resolve, reject);
      };
      if (stepId === undefined) {
        start();
        return;
      }
      if (this.burst.length === 0) setImmediate(() => this.flush());
      this.burst.push({ key: stepId, start });
    });
  }

  private flush(): void {
    const burst = this.burst.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.burst = [];
    for (const b of burst) b.start();
  }
}
