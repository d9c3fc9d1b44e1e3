// killpoint/agent, the client a TypeScript agent calls: it checks what it is given and names the
// call that was wrong (a silent mistake in the agent would be a silent pass in the check), its store
// commits a write with its log row and its key, and a life that never ends is stopped with an error.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { AgentUsageError, idempotencyKey, refuse, startLife, type AgentLife } from '../src/agent/index.js';
import { checkAgent } from '../src/harness/api/check-agent.js';

let dir: string;
let life: AgentLife;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'killpoint-agent-client-'));
  life = startLife({ KILLPOINT_STATE_DIR: dir, KILLPOINT_EVENTS: join(dir, 'events.jsonl'), KILLPOINT_LIFE: '0' });
});

afterEach(() => {
  life.close();
  rmSync(dir, { recursive: true, force: true });
});

const events = () => readFileSync(join(dir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('startLife', () => {
  test('outside killpoint it says which variables are missing', () => {
    expect(() => startLife({})).toThrow(/startLife\(\): KILLPOINT_STATE_DIR and KILLPOINT_EVENTS are not set/);
  });
  test('a kill point that is not an integer >= -1 is refused', () => {
    expect(() => startLife({ KILLPOINT_STATE_DIR: dir, KILLPOINT_EVENTS: join(dir, 'e'), KILLPOINT_KILL_AFTER: '0x10' })).toThrow(/KILLPOINT_KILL_AFTER: expected an integer >= -1/);
  });
});

describe('events', () => {
  test('an event after the kill point (a kill that did not land) is an error naming the call, never a silent pass', () => {
    // The kill is SIGKILL to itself; here it is caught, as a wrapper that blocked it would.
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => true);
    const doomed = startLife({ KILLPOINT_STATE_DIR: dir, KILLPOINT_EVENTS: join(dir, 'doomed.jsonl'), KILLPOINT_LIFE: '0', KILLPOINT_KILL_AFTER: '0' });
    try {
      expect(() => doomed.event('tool-start', { tool: 'refund' })).toThrow(/still alive after SIGKILL/);
      expect(kill).toHaveBeenCalledWith(process.pid, 'SIGKILL');
      expect(() => doomed.event('tool-result', { tool: 'refund' })).toThrow(/event\("tool-result"\): an event after the kill point \(0\): this life should be dead/);
    } finally {
      kill.mockRestore();
      doomed.close();
    }
  });
  test('are numbered from 0 in the life, with the kind and the detail', () => {
    life.event('tool-start', { tool: 'refund', callId: 'step-2' });
    life.event('tool-result', { tool: 'refund', callId: 'step-2' });
    expect(events()).toEqual([
      { tool: 'refund', callId: 'step-2', index: 0, kind: 'tool-start' },
      { tool: 'refund', callId: 'step-2', index: 1, kind: 'tool-result' },
    ]);
  });
  test('an event without a kind, or with a detail that sets the index, names the call', () => {
    expect(() => life.event('')).toThrow(new AgentUsageError('event("")', 'expected a non-empty kind, such as "tool-start"'));
    expect(() => life.event('tool-start', { index: 7 })).toThrow(/event\("tool-start"\): the detail may not set "index"/);
  });
});

describe('the store', () => {
  const refundOnce = (key: string | null) =>
    life.openStore().write({ kind: 'refund', target: 'O-1/L1', args: { amountCents: 500 }, key, callId: 'step-2' }, (db) => {
      db.prepare('INSERT INTO refunds VALUES (?)').run(500);
      return { refunded: 500 };
    });

  beforeEach(() => life.openStore().setup((db) => db.exec('CREATE TABLE refunds (amount_cents INTEGER)')));

  test('a write commits with its log row and records shop-commit right after', () => {
    expect(refundOnce(null)).toEqual({ status: 'committed', result: { refunded: 500 } });
    expect(life.openStore().db.prepare('SELECT kind, target, args, key FROM write_log').all()).toEqual([{ kind: 'refund', target: 'O-1/L1', args: '{"amountCents":500}', key: null }]);
    expect(events().map((e) => `${e.kind} ${e.callId}`)).toEqual(['shop-commit step-2']);
  });
  test('with a key seen before, the first result comes back and nothing is written again', () => {
    const key = idempotencyKey('run-1', 'step-2');
    refundOnce(key);
    expect(refundOnce(key)).toEqual({ status: 'repeat', result: { refunded: 500 } });
    expect(life.openStore().db.prepare('SELECT COUNT(*) AS n FROM refunds').get()).toEqual({ n: 1 });
    expect(life.openStore().db.prepare('SELECT COUNT(*) AS n FROM write_log').get()).toEqual({ n: 1 });
  });
  test('a refused write leaves no log row and no commit event', () => {
    expect(life.openStore().write({ kind: 'refund', target: 'O-1/L1', args: {} }, () => refuse('over-refund'))).toEqual({ status: 'refused', reason: 'over-refund' });
    expect(life.openStore().db.prepare('SELECT COUNT(*) AS n FROM write_log').get()).toEqual({ n: 0 });
  });
  test('a write without a kind or target, or with an empty key, names the call and what it expected', () => {
    const store = life.openStore();
    expect(() => store.write({ target: 'O-1/L1', args: {} } as never, () => 1)).toThrow('killpoint/agent write(null): expected a non-empty kind, such as "refund"');
    expect(() => store.write({ kind: 'refund', target: '', args: {} }, () => 1)).toThrow(/write\("refund"\): expected a non-empty target/);
    expect(() => store.write({ kind: 'refund', target: 'x', args: {}, key: '' }, () => 1)).toThrow(/expected the key as a non-empty string, or none/);
    expect(() => idempotencyKey('run-1', '')).toThrow(/idempotencyKey\(\): expected the step id/);
  });
  test('a keyed write whose result is not JSON is refused (a repeat could not give it back) and rolls back', () => {
    expect(() => life.openStore().write({ kind: 'refund', target: 'x', args: {}, key: 'k' }, () => undefined)).toThrow(/a keyed write must return a JSON value/);
    expect(life.openStore().db.prepare('SELECT COUNT(*) AS n FROM write_log').get()).toEqual({ n: 0 });
  });
});

describe('the outbox and the state folder', () => {
  test('deliver writes one outbox line and answer-delivered; delivered() reads it back', () => {
    life.deliver('Refunded.', 'run-1');
    expect(life.delivered()).toEqual(['Refunded.']);
    expect(events().at(-1)!.kind).toBe('answer-delivered');
    expect(() => life.deliver('')).toThrow(/deliver\(\): expected the answer as a non-empty string/);
  });
  test('a file name that leaves the state folder is refused', () => {
    expect(() => life.path('../journal.json')).toThrow(/path\("..\/journal.json"\): expected a plain file name/);
  });
});

test('a life that never finishes stops the check with an error naming the life and the bound', async () => {
  await expect(checkAgent({ agent: [process.execPath, '-e', 'setTimeout(() => {}, 1e9)'], lifeTimeoutMs: 1_000 })).rejects.toThrow(/a life did not end within 1 s; it was killed/);
}, 30_000);
