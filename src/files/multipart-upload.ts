import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../platform/errors.ts';
import { sniffContent, type ContentVerdict } from './content-sniffing.ts';
import { EarlyCopy, type AcceptedContent, type EarlyStore } from './early-copy.ts';
import { maximumFileBytes, sniffedHeadBytes } from './file-limits.ts';
import { UploadSpool } from './upload-spool.ts';

// A multipart upload is read as it arrives: the `file` part is hashed and sniffed on its first bytes,
// and reading stops at the first byte over the limit or at a blocked type. Memory holds the sniffed
// head and stream buffers, never the file. Once the head is accepted, the bytes go on to S3 while they
// arrive when the request tells the file's size (early-copy.ts); otherwise they are spooled to a
// temporary file and stored once the whole file has been received and accepted. A refusal is
// answered only after whatever was stored has been removed.

export interface ReceivedFile {
  size: number;
  sha256: string;
  verdict: AcceptedContent;
  /** Where the content is: already stored under an object key, or spooled to a file to store. */
  content: { storedAt: string } | { spooledAt: string };
  /** Names as sent (not yet cleaned): the `fileName` text part, and the file part's own filename. */
  fileNameField?: string;
  partFileName?: string;
  /** Other text parts of the form, by name, as sent (the extraction upload reads `labels` here). */
  textParts: Record<string, string>;
  /** Removes the spool; a stored object belongs to the caller. */
  discard(): Promise<void>;
}

export type ReceivedFilePart = Omit<ReceivedFile, 'fileNameField' | 'textParts' | 'discard'>;

export interface ReceiveOptions {
  /** The request's Content-Length, when the client declared one. */
  declaredBodyBytes?: number;
  earlyStore?: EarlyStore;
}

/** A multipart/form-data request body as the handler has it. */
export interface MultipartBody extends Pick<ReceiveOptions, 'declaredBodyBytes'> {
  stream: Readable;
  contentType: string;
}

export async function receiveMultipartUpload(body: Readable, contentType: string, options: ReceiveOptions = {}): Promise<ReceivedFile> {
  const spool = new UploadSpool();
  const discard = () => spool.discard();
  try {
    return { ...(await readForm(body, contentType, spool, options)), discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

/** Text parts are small (a name, a labels object of up to 50 × 576 characters); the file is the big part. */
const maximumTextPartBytes = 128 * 1024;

const filePartProblem = (issue: string) => new ValidationError([{ field: 'file', issue }]);
const onlyOneFilePart = () => filePartProblem('Send exactly one part named "file"; this form has more than one.');
const missingFilePart = () => filePartProblem('A part named "file" carrying the file content is required.');
const filePartWithoutFileName = () => filePartProblem('Send "file" as a file part: its Content-Disposition needs a filename parameter.');

function readForm(
  body: Readable,
  contentType: string,
  spool: UploadSpool,
  options: ReceiveOptions,
): Promise<ReceivedFilePart & { fileNameField?: string; textParts: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        // Separators and control characters in names are cleaned by cleanFileName, one rule for both
        // name sources; UTF-8 is what browsers and curl send in filename parameters.
        preservePath: true,
        defParamCharset: 'utf8',
        limits: { fileSize: maximumFileBytes + 1, files: 4, fields: 16, parts: 20, fieldSize: maximumTextPartBytes, headerPairs: 16 },
      });
    } catch (error) {
      reject(new InvalidRequestError(`The multipart body cannot be read: ${(error as Error).message}.`));
      return;
    }
    let settled = false;
    let filePart: Promise<ReceivedFilePart> | undefined;
    let activeFileStream: Readable | undefined;
    let fileName: string | undefined;
    const earlyCopy = new EarlyCopy(body, contentType, options);

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // Stop reading: the gateway discards what the client still sends. The caller answers once the
      // file part has stopped and the early store holds nothing, so a refusal leaves nothing stored.
      body.unpipe(parser);
      activeFileStream?.destroy();
      parser.destroy();
      void Promise.resolve(filePart)
        .catch(() => undefined)
        .then(() => earlyCopy.discard())
        .then(() => reject(error), () => reject(error));
    };

    parser.on('file', (name, stream, info) => {
      // Destroying the parser on failure errors its open file streams; that error is already handled.
      stream.on('error', () => undefined);
      // busboy may go on parsing the chunk it holds after a refusal: a part that starts then is skipped.
      if (settled || name !== 'file') {
        stream.resume(); // other file parts are not part of this API; skip their bytes
        return;
      }
      if (filePart) {
        stream.resume();
        fail(onlyOneFilePart());
        return;
      }
      activeFileStream = stream;
      // busboy stops feeding a part at its size limit and then skips the rest at full speed, without
      // backpressure; stop reading the request at that moment rather than when the spool catches up
      // (once busboy has returned from the chunk it is parsing: it does not expect to be destroyed).
      stream.on('limit', () => queueMicrotask(() => fail(new PayloadTooLargeError())));
      filePart = receiveFilePart(stream, info.filename, spool, earlyCopy);
      filePart.catch(fail);
    });
    // No prototype: a part named "__proto__" must stay a plain entry.
    const textParts: Record<string, string> = Object.create(null);
    const textPartNames = new Set<string>();
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) return fail(new InvalidRequestError(`The text part "${name}" exceeds ${maximumTextPartBytes} bytes.`));
      // Which of two values was meant is the client's to say, not ours to guess.
      if (textPartNames.has(name)) return fail(new InvalidRequestError(`The form has more than one part named "${name}"; send it once.`));
      textPartNames.add(name);
      if (name === 'fileName') fileName = value;
      else if (name === 'file') fail(filePartWithoutFileName());
      else textParts[name] = value;
    });
    for (const limit of ['partsLimit', 'filesLimit', 'fieldsLimit'] as const) {
      parser.on(limit, () => fail(new InvalidRequestError('The multipart body has too many parts; send "file" and optionally "fileName".')));
    }
    parser.on('error', (error) => fail(new InvalidRequestError(`The multipart body is malformed: ${(error as Error).message}.`)));
    parser.on('close', () => {
      if (settled) return;
      if (!filePart) {
        fail(missingFilePart());
        return;
      }
      filePart.then((received) => {
        if (settled) return;
        settled = true;
        resolve({ ...received, fileNameField: fileName, textParts });
      }, fail);
    });
    const interrupted = () => fail(new InvalidRequestError('The upload was interrupted before the multipart body ended.'));
    body.on('error', interrupted);
    // A client that goes away may close the request without an error; busboy would wait forever.
    body.on('close', () => {
      if (!body.readableEnded) interrupted();
    });
    body.pipe(parser);
    // The client may have left before these listeners were attached: no 'close' comes any more then.
    if (body.destroyed && !body.readableEnded) interrupted();
  });
}

/**
 * One file part: hashed and sniffed as it streams, refused at the limit or a blocked type, and stored
 * early or spooled (an inactive EarlyCopy always spools).
 */
export async function receiveFilePart(file: Readable, partFileName: string | undefined, spool: UploadSpool, earlyCopy: EarlyCopy): Promise<ReceivedFilePart> {
  const hash = createHash('sha256');
  const head = new HeadCollector(sniffedHeadBytes);
  let size = 0;
  let verdict: AcceptedContent | undefined;
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maximumFileBytes) throw new PayloadTooLargeError();
      hash.update(chunk);
      if (verdict) {
        // Whatever the early store cannot take (a file longer than told) waits in the spool.
        const beyond = earlyCopy.active ? await earlyCopy.write(chunk, size) : chunk;
        if (beyond.length > 0) await spool.write(beyond);
      } else if (head.add(chunk)) {
        // Until now the head holds every byte; this chunk completes it and may hold more.
        const headBytes = head.bytes();
        verdict = acceptedOrThrow(await sniffContent(headBytes, false));
        const pastHead = chunk.subarray(chunk.length - (size - sniffedHeadBytes));
        if (!(await earlyCopy.start(headBytes, verdict, pastHead))) {
          await spool.write(headBytes);
          await spool.write(pastHead);
        }
      }
    }
    if (size === 0) throw new ValidationError([{ field: 'file', issue: 'The file is empty (0 bytes).' }]);
    // A file within the head was never passed on: it is all in the head.
    if (!verdict) {
      verdict = acceptedOrThrow(await sniffContent(head.bytes(), true));
      await spool.write(head.bytes());
    }
    await spool.close();
    const sha256 = hash.digest('hex');
    if (!earlyCopy.active) return { size, sha256, verdict, partFileName, content: { spooledAt: spool.path } };
    const rest = spool.started ? () => createReadStream(spool.path) : undefined;
    return { size, sha256, verdict, partFileName, content: { storedAt: await earlyCopy.finish({ size, sha256, rest }) } };
  } catch (error) {
    await earlyCopy.discard();
    throw error;
  }
}

function acceptedOrThrow(verdict: ContentVerdict): AcceptedContent {
  if (!verdict.accepted) throw new UnsupportedMediaTypeError(verdict.reason);
  return verdict;
}

/** Keeps the first `limit` bytes of a stream; `add` reports when the head is complete. */
export class HeadCollector {
  private readonly chunks: Buffer[] = [];
  private collected = 0;

  constructor(private readonly limit: number) {}

  add(chunk: Buffer): boolean {
    if (this.collected < this.limit) {
      const needed = this.limit - this.collected;
      this.chunks.push(chunk.length > needed ? Buffer.from(chunk.subarray(0, needed)) : Buffer.from(chunk));
      this.collected += Math.min(needed, chunk.length);
    }
    return this.collected >= this.limit;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
