import { monotonicFactory } from 'ulidx';

// Opaque identifiers: a type prefix and a time-sortable random ULID body (DESIGN.md, Names).
const nextUlid = monotonicFactory();

export type IdentifierPrefix = 'file' | 'ext' | 'fld' | 'fb' | 'wf' | 'run' | 'step' | 'sub' | 'evt' | 'dlv' | 'ws' | 'key';

export function newIdentifier(prefix: IdentifierPrefix): string {
  return `${prefix}_${nextUlid()}`;
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
