import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeS3rverWritesAtomic } from '../../../src/local/s3rver-atomic-writes.ts';

// The local S3's filesystem store with makeS3rverWritesAtomic applied (as startEmulators does),
// driven directly so that a PUT can fail half way at a chosen byte.

const require = createRequire(import.meta.url);
const FilesystemStore = require('s3rver/lib/stores/filesystem.js') as new (root: string) => any;

let root: string;
let store: any;

beforeEach(async () => {
  makeS3rverWritesAtomic();
  root = await mkdtemp(join(tmpdir(), 'paperflow-s3rver-'));
  store = new FilesystemStore(root);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function failingAfter(bytes: Buffer): Readable {
  return Readable.from(
    (async function* () {
      yield bytes;
      throw new Error('the client went away');
    })(),
  );
}

async function stored(key: string): Promise<{ body: string; contentType: string; length: number }> {
  const object = await store.getObject('files', key);
  return { body: await text(object.content), contentType: object.metadata['content-type'], length: Number(object.metadata['content-length']) };
}

async function filesUnder(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).map(String).sort();
}

describe('s3rver writes made atomic', () => {
  it('keeps the previous object whole when a PUT over it fails half way', async () => {
    const original = 'a'.repeat(64 * 1024);
    await store.putObject({ bucket: 'files', key: 'events/evt_1.json', metadata: { 'content-type': 'application/json' }, content: Buffer.from(original) });

    const replacing = store.putObject({ bucket: 'files', key: 'events/evt_1.json', metadata: { 'content-type': 'text/plain' }, content: failingAfter(Buffer.from('b'.repeat(16 * 1024))) });

    await expect(replacing).rejects.toThrow('the client went away');
    expect(await stored('events/evt_1.json')).toEqual({ body: original, contentType: 'application/json', length: original.length });
  });

  it('leaves no object, and no staged file, when the first PUT of a key fails half way', async () => {
    await expect(store.putObject({ bucket: 'files', key: 'runs/run_1.json', metadata: {}, content: failingAfter(Buffer.from('{"half":')) })).rejects.toThrow();

    expect(await store.existsObject('files', 'runs/run_1.json')).toBe(false);
    expect((await store.listObjects('files', { prefix: 'runs/' })).objects).toEqual([]);
    expect((await filesUnder(root)).filter((name) => name.includes('.partial-'))).toEqual([]);
  });

  it('answers a PUT with every byte in place and its metadata, from a stream or a buffer', async () => {
    const chunks = Array.from({ length: 40 }, (_unused, index) => String(index).padStart(1024, '.'));
    const streamed = await store.putObject({ bucket: 'files', key: 'big.bin', metadata: { 'content-type': 'application/octet-stream', 'x-amz-meta-origin': 'test' }, content: Readable.from(chunks.map((chunk) => Buffer.from(chunk))) });
    const buffered = await store.putObject({ bucket: 'files', key: 'small.txt', metadata: { 'content-type': 'text/plain' }, content: Buffer.from('hello') });

    expect(streamed.size).toBe(40 * 1024);
    expect(await stored('big.bin')).toEqual({ body: chunks.join(''), contentType: 'application/octet-stream', length: 40 * 1024 });
    expect((await store.getObject('files', 'big.bin')).metadata['x-amz-meta-origin']).toBe('test');
    expect(buffered).toEqual({ size: 5, md5: '5d41402abc4b2a76b9719d911017c592' });
    expect(await stored('small.txt')).toMatchObject({ body: 'hello', length: 5 });
    expect((await filesUnder(root)).filter((name) => name.includes('.partial-'))).toEqual([]);
  });
});
