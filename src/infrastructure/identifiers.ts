import { createHash } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulidx';

// Opaque identifiers: a type prefix and a time-sortable random ULID body (DESIGN.md, Names).
const nextUlid = monotonicFactory();

export type IdentifierPrefix = 'file' | 'ext' | 'fld' | 'fb' | 'wf' | 'run' | 'step' | 'sub' | 'evt' | 'dlv' | 'ws' | 'key';

export function newIdentifier(prefix: IdentifierPrefix): string {
  return `${prefix}_${nextUlid()}`;
}

/**
 * The same identifier every time for the same `seed`: a ULID whose time part is `timeMs` and whose
 * random part comes from the SHA-256 of the seed. Records written at least once (an event per
 * terminal state, a delivery per event and subscription) use it so that a repeated write carries the
 * same id and a conditional put keeps one.
 */
export function deterministicIdentifier(prefix: IdentifierPrefix, seed: string, timeMs: number): string {
  const digest = createHash('sha256').update(seed).digest();
  let position = 0;
  const deterministic = () => digest[position++ % digest.length]! / 256;
  return `${prefix}_${ulid(timeMs, deterministic)}`;
}

/** A ULID as minted here: 26 characters of upper-case Crockford base32 (no I, L, O, U). */
const ulidBody = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * Whether `value` has the shape of an identifier the service mints with this prefix. Anything else
 * cannot name a stored resource, so callers answer 404 (or 422) without asking the store, which
 * refuses keys over its size limit with an error that is not the caller's to retry.
 */
export function isIdentifier(prefix: IdentifierPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ulidBody.test(value.slice(prefix.length + 1));
}
