// The shapes of a --resume entry, read once for every engine: a bare value, `{ "to", "value" }`
// naming its wait, a later message `{ "message" }`, and `{ "value" }` alone, which hands its value
// as it is whatever its shape (a chat's hook payload `{ "message": "/done" }`). And a Vercel hook
// keyed by its own run's id is named alike in every run, so two runs never killed agree on it.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { placeOfHook } from '../src/harness/engines/vercel-workflow/module/hook-waits.js';
import { Turns, valueOf } from '../src/harness/user-module/turns.js';
import { UserModuleSetupError } from '../src/harness/user-module/setup-error.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'turn-entries-'));
  dirs.push(d);
  return d;
};

describe('a --resume entry', () => {
  test('each shape hands its value', () => {
    expect(valueOf(true)).toBe(true);
    expect(valueOf({ to: 'ask', value: 'yes' })).toBe('yes');
    expect(valueOf({ value: { message: '/done' } })).toEqual({ message: '/done' });
    // Two fields that are not `to` and `value`: the object is the value.
    expect(valueOf({ value: 1, note: 'x' })).toEqual({ value: 1, note: 'x' });
  });

  test('a message-shaped payload for a wait is refused bare, and handed when wrapped in { "value" }', () => {
    const bare = new Turns(folder(), { values: [{ message: '/done' }], arg: 'resume.json', redeliver: false }, true);
    expect(() => bare.turnFor('hook-1', 'chat', { hook: 'chat' })).toThrow(UserModuleSetupError);
    expect(() => bare.turnFor('hook-1', 'chat', { hook: 'chat' })).toThrow(/is a later message.*given as \{"value": V\}/);
    const wrapped = new Turns(folder(), { values: [{ value: { message: '/done' } }], arg: 'resume.json', redeliver: false }, true);
    expect(wrapped.turnFor('hook-1', 'chat', { hook: 'chat' })).toEqual({ name: 'chat#1', value: { message: '/done' } });
  });
});

describe('a Vercel hook named by where it waits', () => {
  test("a run's id inside its token is {run}: two runs name the wait alike", () => {
    const a = placeOfHook('wrun_01M996N3DKQ8Z6W4Y0T5R2C51Z', false);
    const b = placeOfHook('wrun_01M996PYRA7B3C9D2E6F1G4C6D', false);
    expect(a).toBe('{run}');
    expect(b).toBe(a);
    expect(placeOfHook('chat:wrun_01M996N3DKQ8Z6W4Y0T5R2C51Z', false)).toBe('chat:{run}');
    // A token of the user's own stays as written, and a generated one is named by its kind.
    expect(placeOfHook('refund-approval:O-7', false)).toBe('refund-approval:O-7');
    expect(placeOfHook('V1StGXR8_Z5jdHi6B-myT', true)).toBe('webhook');
  });
});
