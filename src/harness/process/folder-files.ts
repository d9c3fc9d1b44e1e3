// A state folder held in memory: its subfolders and its files' bytes, read in one synchronous
// step (as a kill would leave them), compared with another such reading, hashed, and written out
// as a copy of the folder. An in-process life's cuts read the folder after every event and write
// only the readings that changed (in-process/in-process-life.ts), with their hash, so the state
// space need not read them again (state-digest.ts: folderBytesKey).

import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

export interface FolderFiles {
  /** Subfolders, relative, parents before children. */
  dirs: string[];
  /** Files by relative path, in the order read. */
  files: Map<string, Buffer>;
}

/** Every file under `dir` (none when it does not exist), by its full path, in sorted path order. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]))
    .sort();
}

/** How many times a folder is read again when a file it listed is gone by the time it is read. */
const READ_ATTEMPTS = 20;

/**
 * Runs `read` (a synchronous read or copy of a life's folder) again while it fails on a file it
 * listed that is gone when it reaches it. A life in killpoint's process may have an asynchronous
 * write of its own under way on Node's thread pool (a temp file renamed into place, as the Vercel
 * local world writes), which can land between the listing and the read: the folder is read again,
 * whole, so that what is read is one state of it, as a kill would leave it.
 */
export function whileFilesSettle<T>(read: () => T): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return read();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= READ_ATTEMPTS) throw error;
    }
  }
}

/** A folder's entries by name (code unit order): the same folder reads the same whatever order the file system lists it in. */
export function entriesByName(dir: string): Dirent[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function readFolder(dir: string): FolderFiles {
  return whileFilesSettle(() => readFolderOnce(dir));
}

function readFolderOnce(dir: string): FolderFiles {
  const dirs: string[] = [];
  const files = new Map<string, Buffer>();
  const walk = (relative: string): void => {
    const entries = entriesByName(join(dir, relative));
    for (const entry of entries) {
      const path = relative === '' ? entry.name : join(relative, entry.name);
      if (entry.isDirectory()) {
        dirs.push(path);
        walk(path);
      } else if (entry.isFile()) {
        files.set(path, readFileSync(join(dir, path)));
      } else {
        throw new Error(`${join(dir, path)}: a state folder holds files and folders only`);
      }
    }
  };
  walk('');
  return { dirs, files };
}

export function sameFiles(a: FolderFiles, b: FolderFiles): boolean {
  if (a.dirs.length !== b.dirs.length || a.files.size !== b.files.size) return false;
  if (a.dirs.some((d, i) => d !== b.dirs[i])) return false;
  for (const [path, bytes] of a.files) {
    const other = b.files.get(path);
    if (other === undefined || !other.equals(bytes)) return false;
  }
  return true;
}

export function writeFolder(dir: string, folder: FolderFiles): void {
  mkdirSync(dir, { recursive: true });
  for (const sub of folder.dirs) mkdirSync(join(dir, sub), { recursive: true });
  for (const [path, bytes] of folder.files) writeFileSync(join(dir, path), bytes);
}

/** The reading's bytes hashed with its paths: two readings with the same key hold the same folders and bytes. */
export function bytesKeyOf(folder: FolderFiles): string {
  const hash = createHash('sha1');
  for (const sub of folder.dirs) hash.update(`\u0000folder ${sub}\u0000`);
  for (const [path, bytes] of folder.files) {
    hash.update(`\u0000file ${path}\u0000`);
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/**
 * Copies the folder `from` to `to` (made, with its parents), files byte for byte: what cpSync does
 * for a state folder, at half its cost (a life's state is copied two or three times per life, and
 * cpSync checks each path before it copies). Anything else than a file or a folder (a link in an
 * agent's data folder) is copied by cpSync, a link as it reads (cpSync would make a relative link
 * absolute, pointing back into the folder copied from).
 */
export function copyFolder(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) copyFolder(source, target);
    else if (entry.isFile()) copyFileSync(source, target);
    else cpSync(source, target, { recursive: true, verbatimSymlinks: true });
  }
}
