// --redeliver, written once: what a second delivery did is judged in check/ from what the engine
// saw (the wait that took it, the turns never handed once the run ended), whichever the engine; the
// record of the turns keeps a wait that took a second delivery apart from the turns of the list, so
// the person's next turn still goes to the next wait the run stops at. No engine runs here: the
// engines' own tests (dbos-waits, vercel-hook-waits, restate-waits) drive each outcome end to end.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { redeliveryEffect } from '../src/harness/check/redelivery-effect.js';
import { describeEvent } from '../src/harness/check/event-kinds.js';
import type { RunEvent } from '../src/harness/check/events.js';
import { SecondDelivery } from '../src/harness/user-module/second-delivery.js';
import { Turns } from '../src/harness/user-module/turns.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'second-delivery-'));
  dirs.push(d);
  return d;
};

describe('the effect, from where the second delivery went', () => {
  const cases: [string, Pick<RunEvent, 'wait' | 'answered' | 'turnsLeft'>, string][] = [
    ['no wait took it', { wait: 'approval#1', turnsLeft: 0 }, 'ignored'],
    ['its own wait took it (the first never recorded)', { wait: 'approval#1', answered: 'approval#1', turnsLeft: 0 }, 'own-wait'],
    ['a later wait took it and a turn of the list was never handed: it answered in that turn\'s place', { wait: 'approval#1', answered: 'approval#2', turnsLeft: 1 }, 'later-question'],
    ['a later wait took it and every turn was handed too: one answer more', { wait: 'approval#1', answered: 'approval#2', turnsLeft: 0 }, 'applied-twice'],
  ];
  test.each(cases)('%s', (_name, seen, effect) => {
    expect(redeliveryEffect(seen)).toBe(effect);
  });

  test('nothing told yet (the redeliver event alone) is no effect; an engine that saw it at once keeps its word', () => {
    expect(redeliveryEffect({ wait: 'ask#1' })).toBeUndefined();
    expect(redeliveryEffect({ wait: 'ask#1', redelivery: 'later-question', answered: 'ask#2' })).toBe('later-question');
  });

  test('the report names the later wait for both effects that took one', () => {
    const event = (answered: string, turnsLeft: number) => ({ index: 0, kind: 'redelivered', wait: 'refunds#1', answered, turnsLeft }) as RunEvent;
    expect(describeEvent(event('refunds#2', 0))).toBe('redelivered refunds#1: applied twice (refunds#2)');
    expect(describeEvent(event('refunds#2', 1))).toBe('redelivered refunds#1: answering a later question (refunds#2)');
  });
});

describe('the record of the turns', () => {
  const given = { values: ['L1', 'L2', 'done'], arg: 'turns.json', redeliver: true };

  test('a wait that took a second delivery takes no turn of the list: the next wait gets the next turn, and none is left once it is handed', async () => {
    const dir = folder();
    const first = new Turns(dir, given, true);
    expect(first.turnFor('recv-1', 'approval', null)).toEqual({ name: 'approval#1', value: 'L1' });
    // Killed before the run stopped again: the recovery delivers L1 again, and the second recv takes it.
    const said: RunEvent[] = [];
    const recovery = new Turns(dir, given, false);
    const second = new SecondDelivery(recovery, (e) => void said.push({ index: said.length, ...e } as RunEvent));
    expect(await second.take()).toMatchObject({ name: 'approval#1', id: 'recv-1', place: 'approval', value: 'L1' });
    second.takenAt('recv-4', 'approval', 'recv-1');
    expect(recovery.turnFor('recv-7', 'approval', null)).toEqual({ name: 'approval#3', value: 'L2' });
    expect(recovery.turnFor('recv-10', 'approval', null)).toEqual({ name: 'approval#4', value: 'done' });
    await second.ended();
    expect(said.map(describeEvent)).toEqual(['redeliver approval#1: turn delivered again', 'redelivered approval#1: applied twice (approval#2)']);
    // A later life finds every name and value where it was.
    const later = new Turns(dir, given, false);
    expect(later.turnFor('recv-7', 'approval', null)).toEqual({ name: 'approval#3', value: 'L2' });
    expect(later.turnsLeft()).toBe(0);
  });

  test('a turn is delivered again once, and not when the run stopped again at another wait; stopping at its own wait is no acknowledgement', () => {
    const dir = folder();
    new Turns(dir, given, true).turnFor('recv-1', 'approval', null);
    const again = new Turns(dir, given, false);
    again.acknowledge('recv-1');
    expect(again.takeRedelivery()?.name).toBe('approval#1');
    expect(new Turns(dir, given, false).takeRedelivery()).toBeUndefined();

    const other = folder();
    const life = new Turns(other, given, true);
    life.turnFor('recv-1', 'approval', null);
    life.acknowledge('recv-4');
    expect(new Turns(other, given, false).takeRedelivery()).toBeUndefined();
  });

  test('without --redeliver nothing is delivered again', () => {
    const dir = folder();
    new Turns(dir, { values: ['L1'], arg: '["L1"]' }, true).turnFor('recv-1', 'approval', null);
    expect(new Turns(dir, { values: ['L1'], arg: '["L1"]' }, false).takeRedelivery()).toBeUndefined();
  });
});
