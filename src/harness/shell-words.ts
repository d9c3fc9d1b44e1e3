// Command lines as killpoint writes them in replay commands and reads them back from corpus entries
// and system names: a word quoted only when it has to be, and a line split into words as a POSIX
// shell would for that quoting.

/** A word as a shell reads it: quoted only when it has to be. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Splits a command line into words as a POSIX shell would for the quoting killpoint writes (see
 * shellWord above): blanks separate words, '...' keeps everything as it is, and a
 * backslash outside quotes keeps the next character. A replay or a corpus entry names its harness
 * by that line, so it must come back as the same words, spaces in a path included.
 */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | null = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === "'") quoted = false;
      else word += c;
    } else if (c === "'") {
      quoted = true;
      word ??= '';
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (c === ' ' || c === '\t') {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quoted) return undefined;
  if (word !== null) words.push(word);
  return words;
}
