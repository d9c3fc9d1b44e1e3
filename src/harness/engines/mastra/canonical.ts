// What of Mastra's storage no life compares across states: times. A snapshot has its own
// `timestamp` and each step's `startedAt` and `endedAt` (milliseconds since 1970), and the rows
// have createdAt and updatedAt columns (ISO text). The digest of a state (state-digest.ts) reads
// the rest: two states that differ only in when things happened give any life the same reads.

import type { Canonical } from '../../process/state-digest.js';

/** A field holding milliseconds since 1970, in a snapshot's JSON (escaped or not, as a row's text has it). */
const MILLIS_FIELD = /(\\*"(?:timestamp|startedAt|endedAt|suspendedAt|resumedAt)\\*":)\d{12,14}/g;
/** An ISO time (a row's createdAt and updatedAt). */
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

export const dropMastraTimes = (): Canonical => (text) => text.replace(MILLIS_FIELD, '$1 0').replace(ISO_TIME, 'time');
