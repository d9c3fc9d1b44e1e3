// What of Mastra's storage no life compares across states: times. libSQL keeps a snapshot as
// SQLite's binary JSON (JSONB), whose numbers are their digits as text, so the digest of a state
// (state-digest.ts), which reads a blob as latin1 text, sees a snapshot's `timestamp` and each
// step's `startedAt` and `endedAt` (milliseconds since 1970, 13 digits) and the rows' createdAt and
// updatedAt (ISO text). Both are dropped: two states that differ only in when things happened give
// any life the same reads. Nothing else in a run's rows is a number of 13 digits (its ids are the
// scenario's, its amounts are cents).

import type { Canonical } from '../../process/state-digest.js';

/** Milliseconds since 1970, from 2001 to 2286: thirteen digits that start with 1. */
const MILLIS = /(?<!\d)1\d{12}(?!\d)/g;
/** An ISO time. */
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g;

export const dropMastraTimes = (): Canonical => (text) => text.replace(MILLIS, 'ms').replace(ISO_TIME, 'time');
