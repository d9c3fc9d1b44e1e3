// A user's own Vercel workflow, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { TRAFFIC_FLAGS } from '../../../user-module/module-engine.js';
import { vercelModuleSpec, vercelModuleSystem, type VercelModuleOptions } from './system.js';

export const vercelModuleEngine: ModuleEngine = {
  cliOption: '--vercel-workflow',
  vitestField: 'vercelWorkflow',
  kind: 'your own Vercel workflow',
  exports: 'a "use workflow" function and readEffects(ctx)',
  waits: 'createHook()',
  flags: [{ flag: '--workflow-export', field: 'workflowExport', value: 'NAME', expected: 'the name of the export that registers the workflow' }, ...TRAFFIC_FLAGS],
  system: (options, tier) => vercelModuleSystem(vercelModuleSpec(options as VercelModuleOptions), tier),
};
