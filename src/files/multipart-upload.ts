import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { InvalidRequestError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../http/errors.ts';
import { sniffContent, type ContentVerdict } from './content-sniffing.ts';
import { maximumFileBytes, sniffedHeadBytes } from './file-limits.ts';

// A multipart upload is read as it arrives: the `file` part is hashed, sniffed on its first bytes and
// spooled to a temporary file, and reading stops at the first byte over the limit or at a blocked
// type. Only a complete, accepted file goes on to S3, so a refused upload leaves nothing stored;
// memory holds the sniffed head and stream buffers, never the file.

export interface ReceivedFile {
  /** Spooled content; call `discard()` when done with it. */
  path: string;
  size: number;
  sha256: string;
  verdict: AcceptedContent;
  /** Names as sent (not yet cleaned): the `fileName` text part, and the file part's own filename. */
  fileNameField?: string;
  partFileName?: string;
  /** Other text parts of the form, by name, as sent (the extraction upload reads `labels` here). */
  textParts: Record<string, string>;
  discard(): Promise<void>;
}

type AcceptedContent = Extract<ContentVerdict, { accepted: true }>;
type SpooledFile = Omit<ReceivedFile, 'path' | 'fileNameField' | 'textParts' | 'discard'>;

export async function receiveMultipartUpload(body: Readable, contentType: string): Promise<ReceivedFile> {
  const spoolDirectory = await mkdtemp(join(tmpdir(), 'paperflow-upload-'));
  const path = join(spoolDirectory, 'content');
  const discard = () => rm(spoolDirectory, { recursive: true, force: true });
  try {
    return { ...(await readForm(body, contentType, path)), path, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

const spoolBufferBytes = 4 * 1024 * 1024;

/** Text parts are small (a name, a labels object of up to 50 × 576 characters); the file is the big part. */
const maximumTextPartBytes = 128 * 1024;

const filePartProblem = (issue: string) => new ValidationError([{ field: 'file', issue }]);
const onlyOneFilePart = () => filePartProblem('Send exactly one part named "file"; this form has more than one.');
const missingFilePart = () => filePartProblem('A part named "file" carrying the file content is required.');
const filePartWithoutFileName = () => filePartProblem('Send "file" as a file part: its Content-Disposition needs a filename parameter.');

function readForm(body: Readable, contentType: string, spoolPath: string): Promise<SpooledFile & { fileNameField?: string; textParts: Record<string, string> }> {
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
    let filePart: Promise<SpooledFile> | undefined;
    let activeFileStream: Readable | undefined;
    let fileName: string | undefined;

    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      // Stop reading: the caller answers now, and the gateway discards what the client still sends.
      body.unpipe(parser);
      activeFileStream?.destroy();
      parser.destroy();
      reject(error);
    };

    parser.on('file', (name, stream, info) => {
      // Destroying the parser on failure errors its open file streams; that error is already handled.
      stream.on('error', () => undefined);
      if (name !== 'file') {
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
      filePart = spoolFilePart(stream, spoolPath, info.filename);
      filePart.catch(fail);
    });
    // No prototype: a part named "__proto__" must stay a plain entry.
    const textParts: Record<string, string> = Object.create(null);
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new InvalidRequestError(`The text part "${name}" exceeds ${maximumTextPartBytes} bytes.`));
      else if (name === 'fileName') fileName = value;
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
      filePart.then((spooled) => {
        if (settled) return;
        settled = true;
        resolve({ ...spooled, fileNameField: fileName, textParts });
      }, fail);
    });
    const interrupted = () => fail(new InvalidRequestError('The upload was interrupted before the multipart body ended.'));
    body.on('error', interrupted);
    // A client that goes away may close the request without an error; busboy would wait forever.
    body.on('close', () => {
      if (!body.readableEnded) interrupted();
    });
    body.pipe(parser);
  });
}

async function spoolFilePart(file: Readable, spoolPath: string, partFileName: string | undefined): Promise<SpooledFile> {
  // A 4 MiB buffer lets the spool take chunks while earlier ones are written (as batched writes);
  // with the default 16 KB every 64 KB chunk waited for its own write, and so did the request.
  const output = createWriteStream(spoolPath, { highWaterMark: spoolBufferBytes });
  // A failing spool (disk full, or its folder removed after the upload was refused) ends the loop
  // below through the file stream, instead of surfacing as an unhandled 'error' event.
  output.on('error', (error) => file.destroy(error));
  const hash = createHash('sha256');
  const head = new HeadCollector(sniffedHeadBytes);
  let size = 0;
  let verdict: AcceptedContent | undefined;
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maximumFileBytes) throw new PayloadTooLargeError();
      hash.update(chunk);
      if (!verdict && head.add(chunk)) verdict = acceptedOrThrow(await sniffContent(head.bytes(), false));
      if (!output.write(chunk)) await once(output, 'drain');
    }
    output.end();
    await once(output, 'close');
  } catch (error) {
    output.destroy();
    throw error;
  }
  if (size === 0) throw new ValidationError([{ field: 'file', issue: 'The file is empty (0 bytes).' }]);
  verdict ??= acceptedOrThrow(await sniffContent(head.bytes(), true));
  return { size, sha256: hash.digest('hex'), verdict, partFileName };
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
