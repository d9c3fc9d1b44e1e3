// A user's own LangGraph graph, as the command line, the API and the vitest helper name it.

import type { ModuleEngine } from '../../../engine.js';
import { langGraphModuleSpec, langGraphModuleSystem, type LangGraphModuleOptions } from './system.js';

export const langGraphModuleEngine: ModuleEngine = {
  cliOption: '--langgraph',
  vitestField: 'langgraph',
  kind: 'your own LangGraph graph',
  exports: 'createGraph(ctx)',
  waits: 'interrupt()',
  flags: [
    { flag: '--graph-export', field: 'graphExport', value: 'NAME', expected: 'the name of the export that builds the graph' },
    { flag: '--cassette', field: 'cassette', value: 'FILE', expected: "the file of the model's recorded replies (recorded when missing)" },
  ],
  system: (options, tier) => langGraphModuleSystem(langGraphModuleSpec(options as LangGraphModuleOptions), tier),
};
