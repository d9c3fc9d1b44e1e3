// A body as a cassette keeps it: text where its bytes are UTF-8 (JSON, a form, an event stream: what
// reads well in a diff), else base64 (an image uploaded, a PDF downloaded), marked so, so that the
// bytes handed back in a replay are the bytes that came. A body read whole as text would hand back
// U+FFFD where its bytes were not UTF-8, and the agent would get another file than the one recorded.

/** How a record's body or chunks are written: absent, UTF-8 text; base64, the bytes so written. */
export type BodyEncoding = 'base64';

/** A request's body: its text, or its bytes in base64. */
export function bodyOf(bytes: Uint8Array): { body: string; encoding?: BodyEncoding } {
  try {
    return { body: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { body: Buffer.from(bytes).toString('base64'), encoding: 'base64' };
  }
}

/** An answer's chunks as they came: text where the whole answer is UTF-8 (a character split between two chunks included), else each chunk in base64. */
export function chunksOf(parts: readonly Uint8Array[]): { chunks: string[]; encoding?: BodyEncoding } {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    const chunks = parts.map((part) => decoder.decode(part, { stream: true }));
    const rest = decoder.decode();
    if (rest !== '') chunks.push(rest);
    return { chunks };
  } catch {
    return { chunks: parts.map((part) => Buffer.from(part).toString('base64')), encoding: 'base64' };
  }
}

/** A chunk's bytes, as they are handed back. */
export function chunkBytes(chunk: string, encoding: BodyEncoding | undefined): Uint8Array {
  return encoding === 'base64' ? new Uint8Array(Buffer.from(chunk, 'base64')) : new TextEncoder().encode(chunk);
}
