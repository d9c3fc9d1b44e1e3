// A user's own LangGraph graph, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { TRAFFIC_FLAGS } from '../../../user-module/module-engine.js';
import { langGraphModuleSpec, langGraphModuleSystem, type LangGraphModuleOptions } from './system.js';

export const langGraphModuleEngine: ModuleEngine = {
  cliOption: '--langgraph',
  vitestField: 'langgraph',
  kind: 'your own LangGraph graph',
  exports: 'createGraph(ctx)',
  waits: 'interrupt()',
  flags: [
    { flag: '--graph-export', field: 'graphExport', value: 'NAME', expected: 'the name of the export that builds the graph' },
    ...TRAFFIC_FLAGS,
  ],
  system: (options, tier) => langGraphModuleSystem(langGraphModuleSpec(options as LangGraphModuleOptions), tier),
};
