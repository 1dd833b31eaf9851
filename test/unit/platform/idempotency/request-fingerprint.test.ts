import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../../src/platform/errors.ts';
import { idempotencyKeyOf } from '../../../../src/platform/idempotency/idempotency-key.ts';
import { BodyDigest, boundaryOf, bufferedRequestFingerprint, fingerprintOf } from '../../../../src/platform/idempotency/request-fingerprint.ts';

function form(boundary: string, parts: { name: string; fileName?: string; content: string }[]): Buffer {
  const lines = parts.flatMap((part) => [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ''}`,
    ...(part.fileName ? ['Content-Type: text/csv'] : []),
    '',
    part.content,
  ]);
  return Buffer.from([...lines, `--${boundary}--`, ''].join('\r\n'));
}

const identity = { method: 'POST', path: '/api/public/v1/files', mediaType: 'multipart/form-data' };
const parts = [
  { name: 'fileName', content: 'ledger.csv' },
  { name: 'file', fileName: 'ledger.csv', content: 'invoice,amount\nINV-1,120.00\n' },
];

function digestInChunks(contentType: string, body: Buffer, chunkBytes: number): string {
  const digest = new BodyDigest(contentType);
  for (let offset = 0; offset < body.length; offset += chunkBytes) digest.update(body.subarray(offset, offset + chunkBytes));
  return digest.digest();
}

describe('request fingerprints', () => {
  it('a form sent twice with different boundaries has one fingerprint', () => {
    const first = bufferedRequestFingerprint(identity, 'multipart/form-data; boundary=----a1', form('----a1', parts));
    const second = bufferedRequestFingerprint(identity, 'multipart/form-data; boundary="formdata-undici-0123456789"', form('formdata-undici-0123456789', parts));

    expect(first.known).toBe(second.known);
  });

  it('a form whose file, part name or order differs has another', () => {
    const fingerprintOfParts = (changed: typeof parts) => bufferedRequestFingerprint(identity, 'multipart/form-data; boundary=b', form('b', changed)).known;
    const original = fingerprintOfParts(parts);

    expect(fingerprintOfParts([parts[0]!, { ...parts[1]!, content: 'invoice,amount\nINV-1,120.01\n' }])).not.toBe(original);
    expect(fingerprintOfParts([{ ...parts[0]!, name: 'title' }, parts[1]!])).not.toBe(original);
    expect(fingerprintOfParts([parts[1]!, parts[0]!])).not.toBe(original);
  });

  it.each([1, 2, 7, 64])('digests a form fed in chunks of %i bytes as it does whole (a boundary split between chunks)', (chunkBytes) => {
    const contentType = 'multipart/form-data; boundary=split-boundary';
    const body = form('split-boundary', parts);

    expect(digestInChunks(contentType, body, chunkBytes)).toBe(digestInChunks(contentType, body, body.length));
    expect(digestInChunks(contentType, body, chunkBytes)).toBe(digestInChunks('multipart/form-data; boundary=other', form('other', parts), body.length));
  });

  it('compares other bodies byte for byte', () => {
    const json = (body: string) => bufferedRequestFingerprint({ ...identity, mediaType: 'application/json' }, 'application/json', Buffer.from(body)).known;

    expect(json('{"a":1}')).toBe(json('{"a":1}'));
    expect(json('{"a":1}')).not.toBe(json('{"a":2}'));
    expect(json('{"a":1}')).not.toBe(json('{ "a":1}'));
  });

  it('tells apart the method, the path and the media type of the same body', () => {
    const digest = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    const base = fingerprintOf(identity, digest);

    expect(fingerprintOf({ ...identity, path: '/api/public/v1/event-subscriptions' }, digest)).not.toBe(base);
    expect(fingerprintOf({ ...identity, method: 'PUT' }, digest)).not.toBe(base);
    expect(fingerprintOf({ ...identity, mediaType: 'application/json' }, digest)).not.toBe(base);
    expect(fingerprintOf({ ...identity, method: 'post' }, digest)).toBe(base);
  });

  it('reads the boundary of a form only', () => {
    expect(boundaryOf('multipart/form-data; boundary=abc')).toBe('abc');
    expect(boundaryOf('Multipart/Form-Data; charset=utf-8; boundary="a b;c"')).toBe('a b;c');
    expect(boundaryOf('multipart/mixed; boundary=abc')).toBeUndefined();
    expect(boundaryOf('application/json')).toBeUndefined();
    expect(boundaryOf(undefined)).toBeUndefined();
  });
});

describe('the Idempotency-Key header', () => {
  it.each([
    ['a UUID', 'f47ac10b-58cc-4372-a567-0e02b2c3d479'],
    ['one character', 'x'],
    ['255 characters with a space inside', `${'a'.repeat(127)} ${'b'.repeat(127)}`],
  ])('accepts %s', (_case, key) => {
    expect(idempotencyKeyOf([key])).toBe(key);
  });

  it('is optional', () => {
    expect(idempotencyKeyOf([])).toBeUndefined();
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'a'.repeat(256)],
    ['a leading space', ' key'],
    ['a trailing space', 'key '],
    ['a control character', 'key\u0007'],
    ['a character beyond ASCII', 'clé'],
  ])('refuses %s with 400 INVALID_REQUEST', (_case, key) => {
    expect(() => idempotencyKeyOf([key])).toThrow(InvalidRequestError);
  });

  it('refuses the header sent twice', () => {
    expect(() => idempotencyKeyOf(['a', 'a'])).toThrow(/once/);
  });
});
