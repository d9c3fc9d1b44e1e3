// JSON texts read back again and again, parsed once: a recovery reads the journal its kill left
// (recoveries from one state read the same text), every workflow life replays the steps recorded
// before it, and the scripted model reads each tool result at every step. A value is shared by
// every reader, so it is frozen: code that changed one in place would throw rather than change
// what another life reads. What is kept is bounded by the characters of the texts.

const parsed = new Map<string, { value: unknown; text: string | null }>();
const KEPT_CHARS = 32_000_000;
let keptChars = 0;

function entryOf(text: string): { value: unknown; text: string | null } {
  let entry = parsed.get(text);
  if (entry === undefined) {
    entry = { value: deepFreeze(JSON.parse(text) as unknown), text: null }; // a text that is not JSON throws, kept nowhere
    if (keptChars + text.length > KEPT_CHARS) {
      parsed.clear();
      keptChars = 0;
    }
    parsed.set(text, entry);
    keptChars += text.length;
  }
  return entry;
}

/** JSON.parse of the text, frozen and shared. */
export function parsedText(text: string): unknown {
  return entryOf(text).value;
}

/** JSON.stringify of what the text parses to (its canonical spelling), kept with it. */
export function reserialized(text: string): string {
  const entry = entryOf(text);
  entry.text ??= JSON.stringify(entry.value);
  return entry.text;
}

/** Freezes a JSON value and everything in it (what JSON.parse made: plain objects and arrays). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
