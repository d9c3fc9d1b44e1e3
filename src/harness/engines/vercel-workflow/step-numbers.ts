// Steps by their number in the run: the order the workflow created them, the same in every run of
// a scenario (step ids are made of the run's id and clock, so they differ between runs). A life
// that resumes a run reads the numbers of the steps created before it from the world's event files
// (named by the run and a time-ordered event id, so sorted by name they are in the order written);
// the steps it creates get the next ones. A run's sleeps are numbered the same way (by their
// wait_created).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export class StepNumbers {
  private readonly numbers = new Map<string, number>();

  constructor(worldDir: string, private readonly createdBy = 'step_created') {
    const events = join(worldDir, 'events');
    if (!existsSync(events)) return;
    for (const name of readdirSync(events).filter((n) => n.endsWith('.json')).sort()) {
      const event = JSON.parse(readFileSync(join(events, name), 'utf8')) as { eventType?: string; correlationId?: string };
      if (event.eventType === this.createdBy && event.correlationId !== undefined) this.add(event.correlationId);
    }
  }

  /** Numbers a step the workflow just created; false when it had one already (an invocation that wrote it again). */
  add(stepId: string): boolean {
    if (this.numbers.has(stepId)) return false;
    this.numbers.set(stepId, this.numbers.size);
    return true;
  }

  numberOf(stepId: string): number {
    const n = this.numbers.get(stepId);
    if (n === undefined) throw new Error(`killpoint: step ${stepId} runs without having been created`);
    return n;
  }

  /** The step's name at the gate: its number, padded so that names sort as numbers. */
  gateName(stepId: string): string {
    return `step ${String(this.numberOf(stepId)).padStart(6, '0')}`;
  }
}

/** A step's function name from the SDK's step name (`step//./workflow/agent//shopTool` is shopTool). */
export function shortStepName(stepName: unknown): string {
  return typeof stepName === 'string' ? stepName.slice(stepName.lastIndexOf('//') + 2) : '';
}
