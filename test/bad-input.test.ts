// Bad input fails loudly and says where: a scenario names the file and the field; a journal that
// cannot be read stops the resume, which never carries on from garbage or silently starts over.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runLives } from '../src/engines/scripted/simulate.js';
import { closeStores, memoryStores } from '../src/engines/scripted/stores.js';
import { LANTERN_DIR, lanternScenario, loadScenarioFile } from '../src/model/load.js';
import { parseScenario, ScenarioError } from '../src/model/scenario.js';
import { ScriptedModel } from '../src/model/scripted-model.js';
import { readFileSync } from 'node:fs';

const danaJson = () => JSON.parse(readFileSync(join(LANTERN_DIR, 'T01-dana-torn-pad.json'), 'utf8'));

function errorOf(raw: unknown): ScenarioError {
  try {
    parseScenario(raw, 'my-task.json');
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  throw new Error('the scenario loaded');
}

describe('a scenario with a missing or mistyped field', () => {
  it('names the file and a missing field', () => {
    const raw = danaJson();
    delete raw.customerMessage;
    expect(errorOf(raw).message).toBe('my-task.json: customerMessage: expected a non-empty string');
  });

  it('names a mistyped field deep inside the shop rows', () => {
    const raw = danaJson();
    raw.shop.orders[0].lines[0].quantity = '2';
    expect(errorOf(raw).message).toBe('my-task.json: shop.orders[0].lines[0].quantity: expected an integer >= 1');
  });

  it('names a misspelled field instead of ignoring it', () => {
    const raw = danaJson();
    raw.model.steps.refund.nxt = raw.model.steps.refund.next;
    expect(errorOf(raw).field).toBe('model.steps.refund.nxt');
  });

  it('names a tool argument of the wrong type', () => {
    const raw = danaJson();
    raw.model.steps.refund.calls[0].args.amountCents = 79.5;
    expect(errorOf(raw).message).toBe('my-task.json: model.steps.refund.calls[0].args.amountCents: expected a whole number of cents >= 1');
  });

  it('names a branch to a step that does not exist', () => {
    const raw = danaJson();
    raw.model.steps['list-refunds'].next = 'refnud';
    expect(errorOf(raw).field).toBe('model.steps.list-refunds.next[0].goto');
  });

  it('rejects a step graph with a cycle, which could loop forever', () => {
    const raw = danaJson();
    raw.model.steps['list-refunds'].next = 'find-customer';
    expect(errorOf(raw).expected).toMatch(/^no cycle \(found find-customer -> .* -> find-customer\)$/);
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
      const outcome = runLives(dana, 'journal', { kills: [], interleaving: [] }, stores, new ScriptedModel(dana));
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
