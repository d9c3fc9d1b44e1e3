// Where a model call leaves the recording: a model is called with the conversation so far, so a
// call the cassette does not hold is named by the first message at which its conversation differs
// from every recorded call to the same place (OpenAI's and Anthropic's `messages`, OpenAI's
// responses `input`, Google's `contents`), as the verdict "the conversation diverged at message N".

import { canonicalJson } from '../../model/canonical-json.js';
import type { CassetteEntry } from './cassette-file.js';
import { placeOf, type HttpRequestRecord } from './exchange.js';

/** The messages of a model call's body, each as canonical JSON; null when the body holds no list of them. */
export function conversationOf(body: string): string[] | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
  const list = parsed?.messages ?? parsed?.input ?? parsed?.contents;
  return Array.isArray(list) ? list.map((m) => canonicalJson(m)) : null;
}

/** The verdict's words for a model call the recording does not hold (0-based message number). */
export function modelDivergence(cassette: readonly CassetteEntry[], request: HttpRequestRecord, cassetteFile = 'the cassette'): string {
  const asked = conversationOf(request.body);
  const place = placeOf(request.url);
  let longest = 0;
  for (const entry of cassette) {
    if (entry.role !== 'model' || placeOf(entry.request.url) !== place) continue;
    const recorded = conversationOf(entry.request.body);
    if (asked === null || recorded === null) continue;
    let n = 0;
    while (n < asked.length && n < recorded.length && asked[n] === recorded[n]) n++;
    longest = Math.max(longest, n);
  }
  const where = asked === null ? `a request to ${place} whose body the recording does not hold` : `the conversation diverged at message ${longest}`;
  return `${where} from the recording in ${cassetteFile} (the model was called with a conversation the run never killed did not have)`;
}
