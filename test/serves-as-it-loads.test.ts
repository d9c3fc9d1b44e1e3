// A module that starts a server as it loads (restate.serve(), app.listen) leaves a handle open
// that nothing of killpoint's can close: the check ends after its verdict all the same, with its
// exit status. The binary runs here: the process that must end is its own.

import { expect, test } from 'vitest';
import { killpointCommand } from './helpers.js';

const MODULE = ['--restate', 'test/fixtures/restate-modules/serves-at-load.ts', '--input', 'test/fixtures/restate-modules/input.json'];

// killpointCommand stops a command still running after 120 s: a check that did not end reads as no status.
test('keyed, it ends with exit 0 after its verdict; unkeyed, with exit 1', async () => {
  const keyed = await killpointCommand(['check', ...MODULE]);
  expect(keyed.stdout).toContain('every promised check holds');
  expect(keyed.status, keyed.stderr).toBe(0);
  expect(keyed.left).toEqual([]);
  const unkeyed = await killpointCommand(['check', ...MODULE, '--service-export', 'createUnkeyedService']);
  expect(unkeyed.stdout).toContain('1 case broke a promised check');
  expect(unkeyed.status, unkeyed.stderr).toBe(1);
  expect(unkeyed.left).toEqual([]);
}, 300_000);
