// A harness's report is as rich as check's: a repeat the agent's shop refused is reported with the
// shop's reason, from the tool-result event that carries it ("refused": reason). The Python agent
// with --single-pad has one pad on the line, so the repeat after a kill in the gap is refused.

import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/model/load.js';

it("a refused repeat is reported with the shop's reason, in the events and in what differs", () => {
  const r = spawnSync(process.execPath, ['bin/killpoint.mjs', 'harness', '--schedule', 'shop-commit[step-2]', '--', 'python3', 'agents/python/refund_agent.py', '--single-pad'], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stdout).toMatch(/life 2 \(recovery 1\)[^]*refund step-2: result \(refused: over-refund\)/);
  expect(r.stdout).toContain("1 repeat refused by the shop's rules (over-refund)");
  expect(r.stdout).not.toMatch(/committed twice/);
}, 60_000);
