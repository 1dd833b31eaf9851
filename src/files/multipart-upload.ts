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
// type. Memory holds the sniffed head and stream buffers, never the file.
//
// Storing waits for nothing it does not have to. Once the head is accepted and the file's size can be
// told from the request's Content-Length (the file is the last part, as curl, browsers and SDKs send
// it), the bytes also go on to an early store while they arrive; the size is confirmed when the part
// ends, and any other ending (another size, a refusal, a broken body) discards what the early store
// got. Without a known size, the complete, accepted spool is stored afterwards.

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
  /** True when the early store holds the complete content; it then belongs to the caller. */
  storedEarly: boolean;
  discard(): Promise<void>;
}

export type AcceptedContent = Extract<ContentVerdict, { accepted: true }>;
type SpooledFile = Omit<ReceivedFile, 'path' | 'fileNameField' | 'textParts' | 'discard'>;

/** Where an accepted file's bytes can go while they still arrive. */
export interface EarlyStore {
  /** Starts storing content of exactly `size` bytes. */
  open(size: number, verdict: AcceptedContent): EarlyStoredContent;
}

export interface EarlyStoredContent {
  /** Takes the next bytes; resolves when it can take more. */
  write(chunk: Buffer): Promise<void>;
  /** Ends the content; resolves true once it is stored complete, false if storing failed. */
  finish(): Promise<boolean>;
  /** Stops storing, and removes whatever was stored. */
  discard(): Promise<void>;
}

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
  const spoolDirectory = await mkdtemp(join(tmpdir(), 'paperflow-upload-'));
  const path = join(spoolDirectory, 'content');
  const discard = () => rm(spoolDirectory, { recursive: true, force: true });
  try {
    return { ...(await readForm(body, contentType, path, options)), path, discard };
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

function readForm(
  body: Readable,
  contentType: string,
  spoolPath: string,
  options: ReceiveOptions,
): Promise<SpooledFile & { fileNameField?: string; textParts: Record<string, string> }> {
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
      filePart = spoolFilePart(stream, spoolPath, info.filename, earlyCopy);
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

async function spoolFilePart(file: Readable, spoolPath: string, partFileName: string | undefined, earlyCopy: EarlyCopy): Promise<SpooledFile> {
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
      output.write(chunk);
      if (verdict) await earlyCopy.write(chunk, size);
      else if (head.add(chunk)) {
        const headBytes = head.bytes();
        verdict = acceptedOrThrow(await sniffContent(headBytes, false));
        // The head is complete with this chunk: everything before it is in the head, and what the
        // chunk holds past the head follows it.
        await earlyCopy.start(headBytes, verdict, chunk.subarray(chunk.length - (size - sniffedHeadBytes)), size);
      }
      // Asked after the early copy's wait, during which the spool may have drained already.
      if (output.writableNeedDrain) await once(output, 'drain');
    }
    output.end();
    await once(output, 'close');
  } catch (error) {
    output.destroy();
    await earlyCopy.discard();
    throw error;
  }
  if (size === 0) throw new ValidationError([{ field: 'file', issue: 'The file is empty (0 bytes).' }]);
  verdict ??= acceptedOrThrow(await sniffContent(head.bytes(), true));
  return { size, sha256: hash.digest('hex'), verdict, partFileName, storedEarly: await earlyCopy.finish(size) };
}

/**
 * The file's way to the early store. The size the store must expect comes from the request: with
 * the file as the last part, the body ends with the file, a CRLF and the closing delimiter, so the
 * file is Content-Length minus where its content starts minus that ending. Where it starts is found
 * in the raw head of the body, where the file's first bytes appear after its part header. Any other
 * layout (a part after the file, an epilogue, a chunked body) makes the prediction wrong or
 * impossible, and the spool is stored afterwards instead: the size the part really had decides.
 */
class EarlyCopy {
  private readonly rawHead: Buffer[] = [];
  private rawHeadBytes = 0;
  private stopCollecting: (() => void) | undefined;
  private content: EarlyStoredContent | undefined;
  private expectedSize = 0;

  constructor(
    body: Readable,
    private readonly contentType: string,
    private readonly options: ReceiveOptions,
  ) {
    if (!options.earlyStore || options.declaredBodyBytes === undefined || !closingDelimiter(contentType)) return;
    const collect = (chunk: Buffer) => {
      this.rawHead.push(chunk);
      this.rawHeadBytes += chunk.length;
      if (this.rawHeadBytes >= rawHeadLimit) this.stopCollecting?.();
    };
    body.on('data', collect);
    this.stopCollecting = () => {
      body.off('data', collect);
      this.stopCollecting = undefined;
    };
  }

  /** Called once, when the head was accepted: opens the early store if the size can be told. */
  async start(head: Buffer, verdict: AcceptedContent, pastHead: Buffer, received: number): Promise<void> {
    const size = this.predictedSize(head);
    this.stopCollecting?.();
    this.rawHead.length = 0;
    if (size === undefined || size < received) return;
    this.expectedSize = size;
    this.content = this.options.earlyStore!.open(size, verdict);
    await this.content.write(head);
    if (pastHead.length > 0) await this.content.write(pastHead);
  }

  /** Passes on a chunk, unless the file outgrew the expected size: then the early copy is given up. */
  async write(chunk: Buffer, received: number): Promise<void> {
    if (!this.content) return;
    if (received > this.expectedSize) await this.discard();
    else await this.content.write(chunk);
  }

  /** At the end of the part: true when the early store holds exactly the received file. */
  async finish(received: number): Promise<boolean> {
    if (!this.content) return false;
    if (received === this.expectedSize && (await this.content.finish())) return true;
    await this.discard();
    return false;
  }

  async discard(): Promise<void> {
    this.stopCollecting?.();
    const content = this.content;
    this.content = undefined;
    // A failed removal is logged by the store; the bucket's lifecycle rule is the backstop, and the
    // answer stays the one the upload earned.
    await content?.discard().catch(() => undefined);
  }

  private predictedSize(head: Buffer): number | undefined {
    const closing = closingDelimiter(this.contentType);
    if (!closing || this.options.declaredBodyBytes === undefined) return undefined;
    const rawHead = Buffer.concat(this.rawHead);
    const contentStart = rawHead.indexOf(head.subarray(0, startMarkerBytes));
    if (contentStart < 0) return undefined;
    const size = this.options.declaredBodyBytes - contentStart - closing.length;
    return size > 0 && size <= maximumFileBytes ? size : undefined;
  }
}

/** The raw body kept for finding where the file starts: part headers and text parts before it, and its head. */
const rawHeadLimit = 2 * sniffedHeadBytes;
/** How many of the file's first bytes locate it in the raw body. */
const startMarkerBytes = 4096;

/** What follows the last part: CRLF, the boundary with its closing dashes, CRLF. */
function closingDelimiter(contentType: string): string | undefined {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return boundary ? `\r\n--${boundary[1] ?? boundary[2]}--\r\n` : undefined;
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
