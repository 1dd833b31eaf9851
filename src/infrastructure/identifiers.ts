import { monotonicFactory } from 'ulidx';

// Opaque identifiers: a type prefix and a time-sortable random ULID body (DESIGN.md, Names).
const nextUlid = monotonicFactory();

export type IdentifierPrefix = 'file' | 'ext' | 'fld' | 'fb' | 'wf' | 'run' | 'step' | 'sub' | 'evt' | 'dlv' | 'ws' | 'key';

export function newIdentifier(prefix: IdentifierPrefix): string {
  return `${prefix}_${nextUlid()}`;
}
