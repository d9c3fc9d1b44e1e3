// A user's own DBOS workflow, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { TRAFFIC_FLAGS } from '../../../user-module/module-engine.js';
import { dbosModuleSpec, dbosModuleSystem, type DbosModuleOptions } from './system.js';

export const dbosModuleEngine: ModuleEngine = {
  cliOption: '--dbos',
  vitestField: 'dbos',
  kind: 'your own DBOS workflow',
  exports: 'createWorkflow(ctx)',
  waits: 'DBOS.recv()',
  flags: [{ flag: '--workflow-export', field: 'workflowExport', value: 'NAME', expected: 'the name of the export that registers the workflow' }, ...TRAFFIC_FLAGS],
  system: (options, tier) => dbosModuleSystem(dbosModuleSpec(options as DbosModuleOptions), tier),
};
