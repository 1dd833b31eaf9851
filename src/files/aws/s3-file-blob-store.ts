import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { DownstreamError } from '../../platform/errors.ts';
import { logger } from '../../infrastructure/logger.ts';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { EarlyStoredContent } from '../early-copy.ts';
import type { FileBlobStore } from '../file-blobs.ts';

/** Filler that completes a streamed put of a file that turned out shorter than told. */
const fillerBytes = Buffer.alloc(64 * 1024);

/** The files bucket's objects, in S3 (download links: s3-file-content-urls.ts; upload forms: s3-upload-forms.ts). */
export class S3FileBlobStore implements FileBlobStore {
  constructor(
    private readonly client: S3Client,
    private readonly bucketName: string,
  ) {}

  /**
   * Stores a spooled file. The SHA-256 we computed while receiving goes along as the object's
   * checksum, so S3 verifies the bytes it stored are the bytes we hashed.
   */
  async putFile(objectKey: string, path: string, content: { size: number; sha256: string; mimeType: string }): Promise<void> {
    await callDownstream('S3 PutObject', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: objectKey,
          // 1 MiB reads: a 50 MB file in 50 chunks rather than 800 through the SDK's HTTP stream.
          Body: createReadStream(path, { highWaterMark: 1024 * 1024 }),
          ContentLength: content.size,
          ContentType: content.mimeType,
          ChecksumSHA256: Buffer.from(content.sha256, 'hex').toString('base64'),
        }),
      ),
    );
  }

  /**
   * Starts a PutObject of exactly `size` bytes whose content is still arriving; the bytes are fed
   * through the returned writer (1 MiB in flight, then the request waits for S3). See
   * EarlyStoredContent for how a file of another size ends up exact. The put cannot carry our SHA-256
   * (it is known only at the end): deployed, the SDK adds its CRC32 as a trailer for S3 to check, and
   * an object made from it is checked against our SHA-256. `discard()` aborts the request and then
   * deletes the key, since an emulator may keep the part it received (S3 stores nothing of an
   * aborted put).
   */
  startPut(objectKey: string, content: { size: number; mimeType: string }): EarlyStoredContent {
    const body = new PassThrough({ highWaterMark: 1024 * 1024 });
    const abort = new AbortController();
    const stored = this.client
      .send(new PutObjectCommand({ Bucket: this.bucketName, Key: objectKey, Body: body, ContentLength: content.size, ContentType: content.mimeType }), {
        abortSignal: abort.signal,
      })
      .then(
        () => true,
        (error: unknown) => {
          if (!abort.signal.aborted) logger.error('downstream call failed', { operation: 'S3 PutObject (streamed)', error });
          body.destroy();
          return false;
        },
      );
    let written = 0;
    let storedKeys = [objectKey];
    const write = async (chunk: Buffer) => {
      written += chunk.length;
      if (body.destroyed || body.write(chunk)) return;
      // Waits for S3 to take more, or for the put to fail (nothing more is sent then).
      await Promise.race([once(body, 'drain').catch(() => undefined), stored]);
    };
    return {
      write,
      finish: async (file) => {
        // A shorter file completes the put with filler that the exact object below leaves out.
        while (written < content.size) await write(fillerBytes.subarray(0, Math.min(fillerBytes.length, content.size - written)));
        body.end();
        if (!(await stored)) throw new DownstreamError();
        if (file.size === content.size) return objectKey;
        const exactKey = `${objectKey}/${randomUUID()}`;
        storedKeys = [objectKey, exactKey];
        await this.putExactFile(exactKey, objectKey, Math.min(file.size, content.size), { ...file, mimeType: content.mimeType });
        await this.delete(objectKey);
        storedKeys = [exactKey];
        return exactKey;
      },
      discard: async () => {
        abort.abort();
        body.destroy();
        await stored;
        for (const key of storedKeys) await this.delete(key);
      },
    };
  }

  /** Stores the first `headBytes` of an object followed by `rest` as a new object of exactly `size` bytes. */
  private async putExactFile(
    objectKey: string,
    sourceKey: string,
    headBytes: number,
    file: { size: number; sha256: string; mimeType: string; rest?: () => Readable },
  ): Promise<void> {
    const source = await callDownstream('S3 GetObject', () =>
      this.client.send(new GetObjectCommand({ Bucket: this.bucketName, Key: sourceKey, Range: `bytes=0-${headBytes - 1}` })),
    );
    async function* exactContent() {
      yield* source.Body as Readable;
      if (file.rest) yield* file.rest();
    }
    await callDownstream('S3 PutObject', () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucketName,
          Key: objectKey,
          Body: Readable.from(exactContent()),
          ContentLength: file.size,
          ContentType: file.mimeType,
          ChecksumSHA256: Buffer.from(file.sha256, 'hex').toString('base64'),
        }),
      ),
    );
  }

  /** The object's size, or undefined when there is no such object. */
  async size(objectKey: string): Promise<number | undefined> {
    return callDownstream('S3 HeadObject', async () => {
      try {
        const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucketName, Key: objectKey }));
        return head.ContentLength ?? 0;
      } catch (error) {
        if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
        throw error;
      }
    });
  }

  /** Server-side copy; false when the source no longer exists. */
  async copy(sourceKey: string, targetKey: string): Promise<boolean> {
    return callDownstream('S3 CopyObject', async () => {
      try {
        await this.client.send(new CopyObjectCommand({ Bucket: this.bucketName, Key: targetKey, CopySource: `${this.bucketName}/${sourceKey}` }));
        return true;
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
        throw error;
      }
    });
  }

  async read(objectKey: string): Promise<Readable> {
    const object = await callDownstream('S3 GetObject', () => this.client.send(new GetObjectCommand({ Bucket: this.bucketName, Key: objectKey })));
    return object.Body as Readable;
  }

  async delete(objectKey: string): Promise<void> {
    await callDownstream('S3 DeleteObject', () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName, Key: objectKey })));
  }
}
