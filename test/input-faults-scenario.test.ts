// Scenario mistakes that used to load silently or fail far from their cause: a write naming an
// order or a line the shop does not have, and timings no run can be measured in (1e308 ms, or a
// run where nothing takes time). Each is refused naming the file, the field and what was expected.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LANTERN_DIR, loadScenarioFile, PROJECT_ROOT } from '../src/model/load.js';
import { parseScenario } from '../src/model/scenario.js';
import { isCorpusEntry, loadCorpus } from '../src/harness/search/corpus.js';
import { runMain, scenarioErrorOf } from './helpers.js';

const FIXTURES = 'test/fixtures/input-faults';

const scenarioJson = (file: string) => JSON.parse(readFileSync(join(LANTERN_DIR, file), 'utf8'));
const danaJson = () => scenarioJson('T01-dana-torn-pad.json');
const umaJson = () => scenarioJson('T12-uma-cancel-jacket.json');

afterEach(() => vi.restoreAllMocks());

describe('a write that names an order or a line the shop does not have', () => {
  it('refuses a refund of an unknown order, naming the step and the order', () => {
    const raw = danaJson();
    raw.model.steps.refund.calls[0].args.orderId = 'O-9999';
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: model.steps.refund.calls[0].args.orderId: expected the id of an order in shop.orders (have: O-1042), got "O-9999"');
  });

  it('refuses a refund of a line the order does not have', () => {
    const raw = danaJson();
    raw.model.steps.refund.calls[0].args.lineId = 'L9';
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: model.steps.refund.calls[0].args.lineId: expected the id of a line of order O-1042 (have: L1, L2), got "L9"');
  });

  it('refuses a cancellation of an unknown order', () => {
    const raw = umaJson();
    raw.model.steps.cancel.calls[0].args.orderId = 'O-1231';
    expect(scenarioErrorOf(raw).message).toBe('my-task.json: model.steps.cancel.calls[0].args.orderId: expected the id of an order in shop.orders (have: O-1230), got "O-1231"');
  });

  it('still lets a read look up an order the shop does not have (the shop refuses it, a branch may follow)', () => {
    const raw = umaJson();
    raw.model.steps.check.calls[0].args.orderId = 'O-1231';
    expect(() => parseScenario(raw, 'my-task.json')).not.toThrow();
  });
});

describe('every scenario killpoint ships or tests with still loads', () => {
  it('the bundled scenarios, the test fixtures and the corpus entries', () => {
    for (const dir of [LANTERN_DIR, join(PROJECT_ROOT, 'test', 'fixtures')]) {
      for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
        const file = join(dir, name);
        if (isCorpusEntry(JSON.parse(readFileSync(file, 'utf8')))) continue;
        expect(() => loadScenarioFile(file), file).not.toThrow();
      }
    }
    expect(loadCorpus().length).toBeGreaterThan(0);
  });
});

describe('timings no run can be measured in', () => {
  it.each([
    ['modelLatencyMs', 1e308],
    ['chunkMs', 1e12],
    ['gapMs', Number.MAX_VALUE],
  ])('refuses timings.%s of %s when the scenario loads', (field, value) => {
    const raw = danaJson();
    raw.timings = { [field]: value };
    expect(scenarioErrorOf(raw).message).toBe(`my-task.json: timings.${field}: expected milliseconds from 0 to 3600000 (an hour), got ${value}`);
  });

  it('keeps 0 for one timing and an hour for another', () => {
    const raw = danaJson();
    raw.timings = { modelLatencyMs: 3_600_000, chunkMs: 0, toolWaitMs: 0, gapMs: 0 };
    expect(parseScenario(raw, 'my-task.json').timings.modelLatencyMs).toBe(3_600_000);
  });

  it('estimate: names the file and the field of a timing of 1e308, exit 2', async () => {
    const { status, err } = await runMain(['estimate', join(FIXTURES, 'huge-model-latency.json')]);
    expect(err).toEqual(['killpoint estimate: test/fixtures/input-faults/huge-model-latency.json: timings.modelLatencyMs: expected milliseconds from 0 to 3600000 (an hour), got 1e+308']);
    expect(status).toBe(2);
  });

  it('estimate: names the file and its timings when nothing in the run takes time, exit 2', async () => {
    const { status, err } = await runMain(['estimate', join(FIXTURES, 'no-time.json')]);
    expect(err).toEqual(['killpoint estimate: test/fixtures/input-faults/no-time.json: timings: expected a run that takes time, but with modelLatencyMs 0, chunkMs 0, toolWaitMs 0 and gapMs 0 every event of T01 happens at 0 ms, so no kill time can be drawn']);
    expect(status).toBe(2);
  });
});
