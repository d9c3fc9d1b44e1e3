// How a life hands a Restate handler's awakeable (and a workflow's durable promise) its turn (src/harness/engines/restate/module/waits.ts),
// on a stand-in for the SDK's context, without a server: the handler is held at the wait until the
// resume is said (else the next step's events could come before it, from run to run), a recovery
// that finds the resolve accepted says and sends nothing, and a turn that cannot be handed ends the
// life and never lets the handler go. The same on a real server: test/restate-waits.test.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as restate from '@restatedev/restate-sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { OutsideWaits } from '../src/harness/engines/restate/module/waits.js';
import { Turns } from '../src/harness/user-module/turns.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A context whose one awakeable is already resolved in the SDK (as in a replay): only the hold keeps the handler back. */
const contextWithAwakeable = (id: string) => ({ awakeable: () => ({ id, promise: { publicPromise: () => Promise.resolve('approved') } }) }) as unknown as restate.Context;

function lifeOf(stateDir: string, values: unknown[] | undefined, firstLife = true) {
  const said: string[] = [];
  const waits = new OutsideWaits({
    turns: new Turns(stateDir, values === undefined ? undefined : { values, arg: JSON.stringify(values) }, firstLife),
    handler: 'refund',
    emit: (e) => void said.push(`${e.kind} ${String(e.wait)}`),
    effectsDone: async () => 0,
    resolvePromise: async () => undefined,
    resolveAwakeable: async (id, value) => {
      await new Promise((r) => setTimeout(r, 20));
      said.push(`resolved ${id} with ${JSON.stringify(value)}`);
    },
    resolvedFile: join(stateDir, 'resolved.json'),
  });
  const handler = async (id: string): Promise<void> => {
    const { promise } = waits.awakeableOf(contextWithAwakeable(id))();
    await (promise as unknown as { publicPromise(): Promise<unknown> }).publicPromise();
    said.push('the handler goes on');
  };
  return { said, waits, handler };
}

const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'awakeables-'));
  dirs.push(d);
  return d;
};

describe('a handler awaiting an awakeable', () => {
  test('is held until the resolve is accepted and the resume said, and its turn is handed once, however often it awaits', async () => {
    const { said, handler } = lifeOf(folder(), [true]);
    await Promise.all([handler('sign_1'), handler('sign_1')]);
    expect(said).toEqual(['awakeable refund#1', 'resolved sign_1 with true', 'resume refund#1', 'the handler goes on', 'the handler goes on']);
  });

  test('a recovery that finds the resolve accepted in an earlier life says nothing and sends nothing; a new wait gets the next value', async () => {
    const dir = folder();
    await lifeOf(dir, [true, false]).handler('sign_1');
    const recovery = lifeOf(dir, [true, false], false);
    await recovery.handler('sign_1');
    await recovery.handler('sign_2');
    expect(recovery.said).toEqual(['the handler goes on', 'awakeable refund#2', 'resolved sign_2 with false', 'resume refund#2', 'the handler goes on']);
  });

  test('a turn that cannot be handed ends the life with the reason and never lets the handler go', async () => {
    const { said, waits, handler } = lifeOf(folder(), []);
    let wentOn = false;
    void handler('sign_1').then(() => (wentOn = true));
    await expect(waits.failure).rejects.toThrow(/the run waits at refund#1, for "ctx\.awakeable\(\) in the handler refund", with no value left in --resume \[\]/);
    await new Promise((r) => setTimeout(r, 30));
    expect(wentOn).toBe(false);
    expect(said).toEqual(['awakeable refund#1']);
  });

  test("a workflow's durable promise, gotten twice, is one wait named by the promise, resolved through the workflow", async () => {
    const dir = folder();
    const said: string[] = [];
    const waits = new OutsideWaits({
      turns: new Turns(dir, { values: [true], arg: '[true]' }, true),
      handler: 'run',
      emit: (e) => void said.push(`${e.kind} ${String(e.wait)}`),
      effectsDone: async () => 0,
      resolveAwakeable: async () => undefined,
      resolvePromise: async (name, value) => void said.push(`resolved ${name} with ${JSON.stringify(value)}`),
      resolvedFile: join(dir, 'resolved.json'),
    });
    const durable = () => ({ get: () => ({ publicPromise: () => Promise.resolve(true) }) });
    const promiseOf = waits.promiseOf({ promise: durable } as unknown as restate.WorkflowContext) as unknown as (name: string) => { get(): { publicPromise(): Promise<unknown> } };
    await Promise.all([promiseOf('approval').get().publicPromise(), promiseOf('approval').get().publicPromise()]);
    expect(said).toEqual(['promise approval#1', 'resolved approval with true', 'resume approval#1']);
  });
});
