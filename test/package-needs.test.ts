// An engine whose packages are not installed is refused before its first life, naming each missing
// package and the command that installs them (exit 2), not with a bundler's or a loader's stack.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SystemInputError } from '../src/harness/engine.js';
import { dbosNeeds } from '../src/harness/engines/dbos/config.js';
import { LANGGRAPH_BUNDLED_NEEDS, LANGGRAPH_MODULE_NEEDS } from '../src/harness/engines/langgraph/config.js';
import { requirePackages } from '../src/harness/process/package-paths.js';
import { PROJECT_ROOT } from '../src/model/load.js';

describe('requirePackages', () => {
  test('names every missing package, who needs it and the install command; installed ones pass', () => {
    expect(() => requirePackages({ by: 'some-engine', packages: ['fast-check', 'no-such-package-of-killpoint', '@no-such/scope-package'] })).toThrow(
      new SystemInputError('some-engine: no-such-package-of-killpoint, @no-such/scope-package are not installed; install with: npm install --save-dev no-such-package-of-killpoint @no-such/scope-package'),
    );
    expect(() => requirePackages({ by: 'e', packages: ['no-such-package-of-killpoint'] })).toThrow(/^e: no-such-package-of-killpoint is not installed;/);
    expect(() => requirePackages({ by: 'e', packages: ['fast-check', 'seedrandom'] })).not.toThrow();
    expect(() => requirePackages(undefined)).not.toThrow();
  });

  test('each engine needs only packages that killpoint declares as optional peers (so the user is told to install what its range admits)', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string>; peerDependenciesMeta: Record<string, { optional?: boolean }> };
    const needed = [LANGGRAPH_BUNDLED_NEEDS, LANGGRAPH_MODULE_NEEDS, dbosNeeds('pglite'), dbosNeeds('postgres')].flatMap((n) => n.packages);
    for (const p of needed) expect(pkg.peerDependenciesMeta[p]?.optional, p).toBe(true);
    expect(dbosNeeds('postgres').packages).not.toContain('@electric-sql/pglite');
  });
});
