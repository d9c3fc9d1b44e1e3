// Bad input fails loudly and says where: a scenario names the file and the field; a journal that
// cannot be read stops the resume, which never carries on from garbage or silently starts over.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { simulateLives } from '../src/harness/engines/scripted/simulate.js';
import { closeStores, memoryStores } from '../src/model/stores.js';
import { LANTERN_DIR, lanternScenario, loadScenarioFile } from '../src/model/load.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { readFileSync } from 'node:fs';
import { scenarioErrorOf } from './helpers.js';

const danaJson = () => JSON.parse(readFileSync(join(LANTERN_DIR, 'T01-dana-torn-pad.json'), 'utf8'));

describe('a scenario with a missing or mistyped field', () => {
  it('names the file and a missing field', () => {
    const raw = danaJson();
    delete raw.customerMessage;
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: customerMessage: expected a non-empty string');
  });

  it('names a mistyped field deep inside the shop rows', () => {
    const raw = danaJson();
    raw.shop.orders[0].lines[0].quantity = '2';
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: shop.orders[0].lines[0].quantity: expected an integer >= 1');
  });

  it('names a misspelled field instead of ignoring it', () => {
    const raw = danaJson();
    raw.model.steps.refund.nxt = raw.model.steps.refund.next;
    expect(scenarioErrorOf(raw).field).toBe('model.steps.refund.nxt');
  });

  it('names a tool argument of the wrong type', () => {
    const raw = danaJson();
    raw.model.steps.refund.calls[0].args.amountCents = 79.5;
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: model.steps.refund.calls[0].args.amountCents: expected a whole number of cents >= 1');
  });

  it('names a branch to a step that does not exist', () => {
    const raw = danaJson();
    raw.model.steps['list-refunds'].next = 'refnud';
    expect(scenarioErrorOf(raw).field).toBe('model.steps.list-refunds.next[0].goto');
  });

  it('rejects a step graph with a cycle, which could loop forever', () => {
    const raw = danaJson();
    raw.model.steps['list-refunds'].next = 'find-customer';
    expect(scenarioErrorOf(raw).expected).toMatch(/^no cycle \(found find-customer -> .* -> find-customer\)$/);
  });

  const dir = mkdtempSync(join(tmpdir(), 'killpoint-bad-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('names a file that is not JSON', () => {
    const path = join(dir, 'broken.json');
    writeFileSync(path, '{ "id": "T99", ');
    expect(() => loadScenarioFile(path)).toThrow(new RegExp(`^${path}: \\(file\\): expected valid JSON`));
  });

  it('names a file that does not exist', () => {
    expect(() => loadScenarioFile(join(dir, 'missing.json'))).toThrow(/missing\.json: \(file\): expected a readable file \(ENOENT\)/);
  });
});

describe('a journal that cannot be parsed', () => {
  it.each(['{"version":1,"runId":"T01","conversation":[{"role":"us', 'null', '{"version":2}'])('makes the resume fail loudly: %s', (garbage) => {
    const dana = lanternScenario('T01');
    const stores = memoryStores(dana.shop);
    stores.journal.write(garbage);
    stores.journal.commit();
    try {
      const outcome = simulateLives(dana, 'journal', { kills: [], interleaving: [] }, stores, new ScriptedModel(dana));
      expect(outcome.lives).toHaveLength(1);
      expect(outcome.lives[0]).toMatchObject({ end: 'failed', errorKind: 'journal-corrupt', events: [] });
      expect(outcome.lives[0]!.error).toMatch(/^cannot resume from the journal at in-memory journal: /);
      expect(outcome.writes).toEqual([]);
      expect(outcome.delivered).toEqual([]);
    } finally {
      closeStores(stores);
    }
  });
});

describe('a scenario the shop or the runner would choke on is a validation error at load time', () => {
  const refund = (raw: ReturnType<typeof danaJson>) => raw.model.steps.refund.calls[0];
  it.each([
    ['a customer id used twice', (r: any) => r.shop.customers.push({ ...r.shop.customers[0], email: 'other@example.com' }), 'shop.customers[1].id', 'an id not already used by shop.customers[0]'],
    ['an email used twice', (r: any) => r.shop.customers.push({ ...r.shop.customers[0], id: 'C-2' }), 'shop.customers[1].email', 'an email not already used by shop.customers[0]'],
    ['an order id used twice', (r: any) => r.shop.orders.push(structuredClone(r.shop.orders[0])), 'shop.orders[1].id', 'an id not already used by shop.orders[0]'],
    ['a line id used twice in an order', (r: any) => r.shop.orders[0].lines.push({ ...r.shop.orders[0].lines[0] }), 'shop.orders[0].lines[2].lineId', 'a line id not already used by shop.orders[0].lines[0]'],
    ['a refund of an order the shop does not have', (r: any) => (r.shop.refunds = [{ orderId: 'O-999', lineId: 'L1', amountCents: 5 }]), 'shop.refunds[0].orderId', 'the id of an order in shop.orders'],
    ['a refund of a line the order does not have', (r: any) => (r.shop.refunds = [{ orderId: r.shop.orders[0].id, lineId: 'L9', amountCents: 5 }]), 'shop.refunds[0].lineId', `the id of a line of order ${'O-1042'}`],
    ['refunds above what the line cost', (r: any) => (r.shop.refunds = [{ orderId: 'O-1042', lineId: 'L1', amountCents: 99_999_999 }]), 'shop.refunds[0].amountCents', 'refunds of line O-1042/L1 adding up to at most what it cost (15900 cents)'],
    ['an argument named toString', (r: any) => (refund(r).args.toString = 1), 'model.steps.refund.calls[0].args.toString', 'no such argument (refund takes orderId, lineId, amountCents)'],
    ['an argument named constructor', (r: any) => (refund(r).args.constructor = {}), 'model.steps.refund.calls[0].args.constructor', 'no such argument (refund takes orderId, lineId, amountCents)'],
    ['a reply in a billion chunks', (r: any) => (r.model.steps.refund.chunks = 1_000_000_000), 'model.steps.refund.chunks', 'an integer from 1 to 1000'],
    ['an answer a million characters long', (r: any) => (r.model.steps.answer.say = 'x '.repeat(500_000)), 'model.steps.answer.say', 'an answer of at most 20000 characters'],
  ])('%s', (_what, change, field, expected) => {
    const raw = danaJson();
    change(raw);
    const error = scenarioErrorOf(raw);
    expect(error.field).toBe(field);
    expect(error.expected).toBe(expected);
  });

  it('an argument named __proto__, as JSON.parse reads it (an own key, not the prototype)', () => {
    const text = readFileSync(join(LANTERN_DIR, 'T01-dana-torn-pad.json'), 'utf8').replace('"amountCents": 7950', '"amountCents": 7950, "__proto__": {"x": 1}');
    expect(text).toContain('__proto__');
    expect(scenarioErrorOf(JSON.parse(text)).field).toBe('model.steps.refund.calls[0].args.__proto__');
  });

  it('a constructor argument nested 100,000 deep is refused before anything walks it', () => {
    const text = readFileSync(join(LANTERN_DIR, 'T01-dana-torn-pad.json'), 'utf8').replace('"amountCents": 7950', `"amountCents": 7950, "constructor": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`);
    expect(scenarioErrorOf(JSON.parse(text)).field).toBe('model.steps.refund.calls[0].args.constructor');
  });

  it('a step graph whose longest run has more events than a life may have', () => {
    const raw = danaJson();
    const steps: Record<string, unknown> = {};
    for (let i = 0; i < 200; i++) steps[`s${i}`] = { calls: [{ tool: 'find_customer', args: { email: 'dana.okafor@example.com' } }], next: i === 199 ? 'end' : `s${i + 1}`, chunks: 1000 };
    steps.end = { say: 'Done.' };
    raw.model = { start: 's0', steps };
    expect(scenarioErrorOf(raw).expected).toMatch(/^a run of at most 50000 events \(the longest path through the steps, s0 -> .* -> end, makes about \d+\)$/);
  });
});
