import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { newIdentifier } from '../infrastructure/identifiers.ts';
import { InvalidRequestError, PayloadTooLargeError } from '../platform/errors.ts';
import { displayName } from './direct-uploads.ts';
import { EarlyCopy } from './early-copy.ts';
import { fileObjectKey, type FileBlobStore } from './file-blobs.ts';
import { maximumFileBytes } from './file-limits.ts';
import { toView, type FileView } from './file-lookup.ts';
import type { FileRecord, FileRecordStore } from './file-records.ts';
import { receiveFilePart, type MultipartBody, type ReceivedFilePart } from './multipart-upload.ts';
import { UploadSpool } from './upload-spool.ts';

// A whole multipart form whose file parts become files (the input of a workflow run): any part names,
// several files under one name, text parts kept as sent. Each file part is checked like `POST /files`
// (50 MB, sniffed, executables refused) and spooled; nothing is stored until every part has arrived
// and the caller has accepted the text parts, and a failure while storing removes what was stored, so
// a refused request leaves no file record and no object behind.

export interface FormLimits {
  maximumFileParts: number;
  maximumTextParts: number;
  /** All text parts together, JSON parts included: they travel inside the run record. */
  maximumTextBytes: number;
}

export type ReceivedFormPart =
  | { kind: 'text'; name: string; value: string; mimeType: string }
  | { kind: 'file'; name: string; file: FileView };

export type ReceivedTextPart = Extract<ReceivedFormPart, { kind: 'text' }>;

export interface FormReceiveOptions {
  limits: FormLimits;
  /** Parts whose declared type is JSON are read as text even when sent as files (curl `-F x=@a.json;type=application/json`). */
  readsAsText: (mimeType: string) => boolean;
  /** May refuse the form by throwing, before any file is stored; `fileNames` are the file parts' names. */
  acceptParts?: (textParts: ReceivedTextPart[], fileNames: string[]) => void;
}

type PendingPart = { kind: 'text'; part: ReceivedTextPart } | { kind: 'file'; name: string; received: Promise<ReceivedFilePart>; spool: UploadSpool };

export class FormUploads {
  constructor(
    private readonly records: Pick<FileRecordStore, 'create' | 'delete'>,
    private readonly blobs: Pick<FileBlobStore, 'putFile' | 'delete'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The form's parts in the order sent, file parts stored as ready files of the workspace. */
  async receiveForm(workspaceId: string, upload: MultipartBody, options: FormReceiveOptions): Promise<ReceivedFormPart[]> {
    const pending: PendingPart[] = [];
    try {
      await readParts(upload, options, pending);
      const received = await Promise.all(pending.map(async (part) => (part.kind === 'file' ? { ...part, file: await part.received } : part)));
      options.acceptParts?.(
        received.flatMap((part) => (part.kind === 'text' ? [part.part] : [])),
        received.flatMap((part) => (part.kind === 'file' ? [part.name] : [])),
      );
      return await this.storeAll(workspaceId, received);
    } finally {
      await Promise.all(pending.map((part) => (part.kind === 'file' ? part.spool.discard() : undefined)));
    }
  }

  private async storeAll(
    workspaceId: string,
    parts: ({ kind: 'text'; part: ReceivedTextPart } | { kind: 'file'; name: string; file: ReceivedFilePart })[],
  ): Promise<ReceivedFormPart[]> {
    const stored: FileRecord[] = [];
    const result: ReceivedFormPart[] = [];
    try {
      for (const part of parts) {
        if (part.kind === 'text') {
          result.push(part.part);
          continue;
        }
        const record = await this.storeFile(workspaceId, part.file, stored);
        result.push({ kind: 'file', name: part.name, file: toView(record) });
      }
      return result;
    } catch (error) {
      // The lifecycle rule and the records' TTL are the backstop when a removal fails too.
      for (const record of stored) {
        await this.records.delete(workspaceId, record.fileId).catch(() => undefined);
        await this.blobs.delete(record.objectKey).catch(() => undefined);
      }
      throw error;
    }
  }

  private async storeFile(workspaceId: string, received: ReceivedFilePart, stored: FileRecord[]): Promise<FileRecord> {
    if (!('spooledAt' in received.content)) throw new Error('Form file parts are spooled, never stored early.');
    const fileId = newIdentifier('file');
    const record: FileRecord = {
      fileId,
      workspaceId,
      fileName: displayName([received.partFileName], received.verdict.extension),
      mimeType: received.verdict.mimeType,
      size: received.size,
      sha256: received.sha256,
      status: 'ready',
      createdAt: this.now().toISOString(),
      objectKey: fileObjectKey(workspaceId, fileId),
    };
    // Counted before the put: a put that fails half way may still leave an object to remove.
    stored.push(record);
    await this.blobs.putFile(record.objectKey, received.content.spooledAt, { size: received.size, sha256: received.sha256, mimeType: record.mimeType });
    await this.records.create(record);
    return record;
  }
}

function readParts(upload: MultipartBody, options: FormReceiveOptions, pending: PendingPart[]): Promise<void> {
  const { limits } = options;
  const body = upload.stream;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': upload.contentType },
        preservePath: true,
        defParamCharset: 'utf8',
        limits: {
          fileSize: maximumFileBytes + 1,
          files: limits.maximumFileParts + limits.maximumTextParts,
          fields: limits.maximumTextParts,
          parts: limits.maximumFileParts + limits.maximumTextParts,
          fieldSize: limits.maximumTextBytes + 1,
          headerPairs: 16,
        },
      });
    } catch (error) {
      reject(new InvalidRequestError(`The multipart body cannot be read: ${(error as Error).message}.`));
      return;
    }
    let settled = false;
    let textBytes = 0;
    let fileParts = 0;
    let textParts = 0;
    const openStreams = new Set<Readable>();
    const textPartsRead: Promise<void>[] = [];

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      body.unpipe(parser);
      for (const stream of openStreams) stream.destroy();
      parser.destroy();
      // Answer once every file part has stopped writing its spool, so the caller's discard is final.
      void Promise.allSettled(pending.map((part) => (part.kind === 'file' ? part.received : undefined))).then(() => reject(error));
    };
    const countText = (name: string, bytes: number) => {
      textBytes += bytes;
      textParts += 1;
      if (textParts > limits.maximumTextParts) throw tooManyParts(limits);
      if (textBytes > limits.maximumTextBytes) {
        throw new PayloadTooLargeError(`The text and JSON parts together exceed ${limits.maximumTextBytes} bytes (part "${name}"); send large content as a file part.`);
      }
    };

    parser.on('file', (name, stream, info) => {
      stream.on('error', () => undefined); // destroying the parser errors open streams; already handled
      // busboy may go on parsing the chunk it holds after a refusal: a part that starts then is skipped.
      if (settled) {
        stream.resume();
        return;
      }
      openStreams.add(stream);
      stream.on('close', () => openStreams.delete(stream));
      if (options.readsAsText(info.mimeType)) {
        const part: ReceivedTextPart = { kind: 'text', name, value: '', mimeType: info.mimeType };
        pending.push({ kind: 'text', part });
        textPartsRead.push(
          readText(stream, limits.maximumTextBytes - textBytes).then((value) => {
            part.value = value;
            countText(name, Buffer.byteLength(value));
          }),
        );
        textPartsRead.at(-1)!.catch(fail);
        return;
      }
      fileParts += 1;
      if (fileParts > limits.maximumFileParts) {
        stream.resume();
        fail(new InvalidRequestError(`The form has more than ${limits.maximumFileParts} file parts.`));
        return;
      }
      stream.on('limit', () => queueMicrotask(() => fail(new PayloadTooLargeError(`The file in part "${name}" exceeds the 50 MB limit.`))));
      const spool = new UploadSpool();
      const received = receiveFilePart(stream, info.filename, spool, new EarlyCopy(body, upload.contentType, {}));
      received.catch(fail);
      pending.push({ kind: 'file', name, received, spool });
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new PayloadTooLargeError(`The text part "${name}" exceeds ${limits.maximumTextBytes} bytes; send large content as a file part.`));
      try {
        countText(name, Buffer.byteLength(value));
      } catch (error) {
        return fail(error);
      }
      pending.push({ kind: 'text', part: { kind: 'text', name, value, mimeType: info.mimeType } });
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) parser.on(limit, () => fail(tooManyParts(limits)));
    parser.on('error', (error) => fail(new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}.`)));
    parser.on('close', () => {
      if (settled) return;
      Promise.all([...textPartsRead, ...pending.map((part) => (part.kind === 'file' ? part.received : undefined))]).then(() => {
        if (settled) return;
        settled = true;
        resolve();
      }, fail);
    });
    const interrupted = () => fail(new InvalidRequestError('The upload was interrupted before the multipart body ended.'));
    body.on('error', interrupted);
    body.on('close', () => {
      if (!body.readableEnded) interrupted();
    });
    body.pipe(parser);
    // The client may have left before these listeners were attached: no 'close' comes any more then.
    if (body.destroyed && !body.readableEnded) interrupted();
  });
}

function tooManyParts(limits: FormLimits): InvalidRequestError {
  return new InvalidRequestError(`The form has too many parts: at most ${limits.maximumFileParts} file parts and ${limits.maximumTextParts} text or JSON parts.`);
}

async function readText(stream: Readable, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limitBytes) throw new PayloadTooLargeError(`The text and JSON parts together exceed the limit; send large content as a file part.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
