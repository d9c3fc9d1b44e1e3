// A user's own Restate service, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { TRAFFIC_FLAGS } from '../../../user-module/module-engine.js';
import { restateModuleSpec, restateModuleSystem, type RestateModuleOptions } from './system.js';

export const restateModuleEngine: ModuleEngine = {
  cliOption: '--restate',
  vitestField: 'restate',
  kind: 'your own Restate service',
  exports: 'createService(ctx)',
  waits: 'ctx.awakeable(), a workflow\'s ctx.promise()',
  flags: [
    { flag: '--service-export', field: 'serviceExport', value: 'NAME', expected: 'the name of the export that defines the service' },
    { flag: '--handler', field: 'handler', value: 'NAME', expected: "the name of the service's handler to invoke" },
    ...TRAFFIC_FLAGS,
  ],
  system: (options, tier) => restateModuleSystem(restateModuleSpec(options as RestateModuleOptions), tier),
};
