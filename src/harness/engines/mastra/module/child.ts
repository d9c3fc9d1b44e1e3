// The unbundled child of a user's Mastra workflow: each life loads the module as it is (TypeScript
// through tsx). Used where the bundle cannot be built or is turned off.

import { startModuleChild } from './child-main.js';

startModuleChild();
