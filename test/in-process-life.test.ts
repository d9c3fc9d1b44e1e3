// A life run in killpoint's process whose folder killpoint cannot copy (its cuts or its kill: a full
// disk, a folder that cannot be written) stops the run with that named, as killpoint's own failure:
// the life is cut off there, and its engine never meets a file system error it did not cause. The
// copies it can write are told of one by one as they are written, while the life goes on.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SystemInputError } from '../src/harness/engine.js';
import { runInProcessLife, type InProcessLife } from '../src/harness/in-process/in-process-life.js';

const root = mkdtempSync(join(tmpdir(), 'killpoint-in-process-life-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A life of three events, writing a file of its folder at each; what its own code was thrown. */
function threeEvents(name: string, options: Partial<InProcessLife>): { life: InProcessLife; thrown: unknown[] } {
  const stateDir = join(root, name);
  mkdirSync(stateDir);
  const thrown: unknown[] = [];
  const life: InProcessLife = {
    stateDir,
    engine: 'Test',
    what: `${name} life 0`,
    killAfter: null,
    timeoutMs: 10_000,
    run: async ({ emit }, _fence, workDir) => {
      for (let i = 0; i < 3; i++) {
        writeFileSync(join(workDir, 'progress'), String(i));
        try {
          emit({ kind: 'run-start', step: i } as never);
        } catch (error) {
          thrown.push(error);
          throw error;
        }
      }
      return null;
    },
    ...options,
  };
  return { life, thrown };
}

describe('a life whose folder killpoint cannot copy', () => {
  it('stops the run with what failed and after which event, exit 2 material; the life itself was only cut off', async () => {
    const notAFolder = join(root, 'a-file');
    writeFileSync(notAFolder, 'not a folder');
    const { life, thrown } = threeEvents('cuts', { cutInto: join(notAFolder, 'cuts') });
    const failed = await runInProcessLife(life).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SystemInputError);
    expect((failed as Error).message).toMatch(/^cuts life 0: killpoint could not copy the life's folder after event 0: ENOTDIR/);
    expect(thrown.map((e) => (e as Error).name)).toEqual(['LifeKilled']);
  });

  it('runs to its end and hands over every copy when the copies can be written', async () => {
    const { life, thrown } = threeEvents('fine', { cutInto: join(root, 'fine-cuts') });
    const ended = await runInProcessLife(life);
    expect(ended.record.end).toBe('finished');
    expect(ended.cuts?.map((c) => c.k)).toEqual([0, 1, 2]);
    expect(thrown).toEqual([]);
  });
});

describe("a life's copies of its folder", () => {
  it('tells of each copy as it is written, while the life goes on: the copy after event k is the folder as the life left it at k', async () => {
    const { life } = threeEvents('heard', { cutInto: join(root, 'heard-cuts') });
    let stepsBegun = 0;
    const run = life.run;
    life.run = (reporting, fence, workDir) => run({ ...reporting, emit: (event) => (stepsBegun++, reporting.emit(event)) }, fence, workDir);
    const heard: string[] = [];
    const ended = await runInProcessLife(life, (cut) => heard.push('dir' in cut ? `copy ${cut.k} holds step ${readFileSync(join(cut.dir, 'progress'), 'utf8')}, heard with ${stepsBegun} steps begun` : `copy ${cut.k} same as ${cut.sameAs}`));
    expect(heard).toEqual(['copy 0 holds step 0, heard with 1 steps begun', 'copy 1 holds step 1, heard with 2 steps begun', 'copy 2 holds step 2, heard with 3 steps begun']);
    expect(ended.cuts?.map((c) => c.k)).toEqual([0, 1, 2]);
  });
});
