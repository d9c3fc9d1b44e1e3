// A user's own Mastra workflow, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { mastraModuleSpec, mastraModuleSystem, type MastraModuleOptions } from './system.js';

export const mastraModuleEngine: ModuleEngine = {
  cliOption: '--mastra',
  vitestField: 'mastra',
  kind: 'your own Mastra workflow',
  exports: 'createWorkflow(ctx) and, optionally, readEffects(ctx)',
  flags: [{ flag: '--workflow-export', field: 'workflowExport', value: 'NAME', expected: 'the name of the export that makes the workflow' }],
  system: (options) => mastraModuleSystem(mastraModuleSpec(options as MastraModuleOptions)),
};
