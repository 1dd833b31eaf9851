import { randomBytes, createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

// s3rver (the local S3) writes an object's bytes straight into its final file and answers the PUT
// once the request body has been read, while the last bytes may still be on their way to that file.
// Two things follow that S3 never does: a process killed in that instant keeps a short object for
// good, and a PUT that fails half way (the client goes away) over an existing key leaves the old
// key's metadata over half of the new bytes. Event data and run values live in the files bucket
// when they are large, so either would corrupt stored records.
//
// `makeS3rverWritesAtomic` replaces the filesystem store's putObject and putMetadata: bytes go to a
// temporary file beside the object, the PUT is answered only once that file is closed, and the
// object appears by renaming it into place (one step for the file system, kept whole across a kill).
// Metadata is written the same way, before the bytes, since s3rver lists and reads an object only
// once its bytes' file exists. Written for s3rver 3.7.1 (pinned in package.json);
// test/unit/local/s3rver-atomic-writes.test.ts checks it against the installed version.

interface StoredObject {
  bucket: string;
  key: string;
  metadata: Record<string, string>;
  content: Buffer | Readable;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

interface FilesystemStoreModule {
  prototype: FilesystemStore;
}

const require = createRequire(import.meta.url);
let applied = false;

export function makeS3rverWritesAtomic(): void {
  if (applied) return;
  const store = require('s3rver/lib/stores/filesystem.js') as FilesystemStoreModule;
  const originalPutMetadata = store.prototype.putMetadata;
  if (typeof originalPutMetadata !== 'function' || typeof store.prototype.putObject !== 'function') {
    throw new Error('s3rver changed: its filesystem store no longer has putObject and putMetadata');
  }
  // The stored metadata fields are s3rver's own choice (content type, user metadata); only where
  // they are written changes, so the original picks them and writes into a temporary path.
  store.prototype.putMetadata = async function putMetadataAtomically(bucket, key, metadata, md5) {
    const metadataPath = this.getResourcePath(bucket, key, 'metadata.json');
    const md5Path = this.getResourcePath(bucket, key, 'object.md5');
    const staged = temporaryPathBeside(metadataPath);
    const redirected = Object.create(this, {
      getResourcePath: { value: (_bucket: string, _key: string, resource: string) => (resource === 'metadata.json' ? staged : `${staged}.${resource}`) },
    }) as FilesystemStore;
    await originalPutMetadata.call(redirected, bucket, key, metadata, undefined);
    if (md5) await writeAndRename(md5Path, md5);
    await rename(staged, metadataPath);
  };

  store.prototype.putObject = async function putObjectAtomically(object) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const staged = temporaryPathBeside(objectPath);
    const md5 = createHash('md5');
    let size = 0;
    try {
      const source = Buffer.isBuffer(object.content) ? [object.content] : object.content;
      const measure = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      await pipeline(source, measure, createWriteStream(staged));
    } catch (error) {
      await rm(staged, { force: true });
      throw error;
    }
    const digest = md5.digest('hex');
    await this.putMetadata(object.bucket, object.key, object.metadata, digest);
    await rename(staged, objectPath);
    return { size, md5: digest };
  };
  applied = true;
}

/** A name s3rver never lists: it takes only files ending in its `._S3rver_object` suffix as objects. */
function temporaryPathBeside(path: string): string {
  return `${path}.partial-${randomBytes(6).toString('hex')}`;
}

async function writeAndRename(path: string, content: string): Promise<void> {
  const staged = temporaryPathBeside(path);
  await writeFile(staged, content);
  await rename(staged, path);
}
