// The README's scenario example is a real scenario: it loads, and it tells Grace's story.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';
import { parseScenario } from '../src/model/scenario.js';
import { killAndJudge, afterFirstCommit } from './helpers.js';

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const example = JSON.parse(/```json\n([\s\S]*?)\n```/.exec(readme)![1]!);

describe("the README's scenario example", () => {
  it('loads', () => {
    expect(parseScenario(example, 'README.md').steps.size).toBe(4);
  });

  it('is refused and blocked when the journal sends the refund again', () => {
    const scenario = parseScenario(example, 'README.md');
    const verdict = killAndJudge(scenario, 'journal', [afterFirstCommit(scenario, 'journal')]);
    expect(verdict.refused).toEqual({ 'over-refund': 1 });
    expect(verdict.answer).toContain('blocked');
  });
});
