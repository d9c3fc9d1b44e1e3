// Imported first by the bundled child of a module whose traffic killpoint plays (bundle.ts): the
// interception is applied before the module and its packages load, so that an SDK client made as
// its module loads (new OpenAI() at the top of a file) holds the intercepted fetch. A request made
// outside any life (as the module loads) is refused: a child or thread that plays a life's traffic
// lets nothing of it out.

import { applyInterception } from './life-traffic.js';

applyInterception(true);
