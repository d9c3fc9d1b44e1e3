// Imported first by the bundled child of a module whose traffic killpoint does not play (no
// cassette): the fetch its requests go through is watched before the module and its packages
// load, so that an endpoint that does not answer is named at its first failed try (unanswered.ts).

import { watchFetch } from './unanswered.js';

watchFetch();
