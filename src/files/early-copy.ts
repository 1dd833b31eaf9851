import type { Readable } from 'node:stream';
import type { ContentVerdict } from './content-sniffing.ts';
import { maximumFileBytes, sniffedHeadBytes } from './file-limits.ts';

// Storing a file while it arrives. S3 needs an object's length before its first byte, and a multipart
// part does not announce one; the request does. With the file as the last part (as curl, browsers'
// FormData and the SDKs send a file appended last), the body ends with the file, a CRLF and the
// closing delimiter, so the file's size is Content-Length minus where its content starts minus that
// ending. Where it starts is found in the raw head of the body: the file's first bytes, right after
// its part header. The prediction only decides how the bytes travel; the size the part really has
// decides what is stored (see EarlyStoredContent.finish).

export type AcceptedContent = Extract<ContentVerdict, { accepted: true }>;

/** Where an accepted file's bytes can go while they still arrive. */
export interface EarlyStore {
  /** Starts storing content of exactly `size` bytes. */
  open(size: number, verdict: AcceptedContent): EarlyStoredContent;
}

export interface EarlyStoredContent {
  /** Takes the next bytes, never more than the opened size; resolves when it can take more. */
  write(chunk: Buffer): Promise<void>;
  /**
   * Ends the content and resolves with the key of an object holding exactly the file. A file shorter
   * than the opened size (a part followed it) was received whole, a longer one (no CRLF after the
   * closing delimiter) up to the opened size, with `rest` streaming its remaining bytes; either way the
   * store makes the exact object from what it holds, checked against `sha256`.
   */
  finish(file: { size: number; sha256: string; rest?: () => Readable }): Promise<string>;
  /** Stops storing, and removes whatever was stored. */
  discard(): Promise<void>;
}

/** The raw body kept for finding where the file starts: part headers and text parts before it, and its head. */
const rawHeadLimit = 2 * sniffedHeadBytes;
/** How many of the file's first bytes locate it in the raw body. */
const startMarkerBytes = 4096;

/** The file part's way to the early store, for one request. */
export class EarlyCopy {
  private readonly rawHead: Buffer[] = [];
  private rawHeadBytes = 0;
  private stopCollecting: (() => void) | undefined;
  private content: EarlyStoredContent | undefined;
  private openedSize = 0;

  constructor(
    body: Readable,
    private readonly contentType: string,
    private readonly options: { declaredBodyBytes?: number; earlyStore?: EarlyStore },
  ) {
    if (!options.earlyStore || options.declaredBodyBytes === undefined || !closingDelimiter(contentType)) return;
    const collect = (chunk: Buffer) => {
      const kept = chunk.subarray(0, rawHeadLimit - this.rawHeadBytes);
      this.rawHead.push(kept);
      this.rawHeadBytes += kept.length;
      if (this.rawHeadBytes >= rawHeadLimit) this.stopCollecting?.();
    };
    body.on('data', collect);
    this.stopCollecting = () => {
      body.off('data', collect);
      this.stopCollecting = undefined;
    };
  }

  get active(): boolean {
    return this.content !== undefined;
  }

  /**
   * Called once the head was accepted, with the bytes received so far (the head, and what the last
   * chunk held past it). Opens the early store when the file's size can be told; false otherwise.
   */
  async start(head: Buffer, verdict: AcceptedContent, pastHead: Buffer): Promise<boolean> {
    const size = this.predictedSize(head);
    this.stopCollecting?.();
    this.rawHead.length = 0;
    if (size === undefined || size < head.length + pastHead.length) return false;
    this.openedSize = size;
    this.content = this.options.earlyStore!.open(size, verdict);
    await this.content.write(head);
    if (pastHead.length > 0) await this.content.write(pastHead);
    return true;
  }

  /**
   * Passes on a chunk; `received` counts the file's bytes up to and including it. Returns what lies
   * beyond the opened size, which the early store cannot take.
   */
  async write(chunk: Buffer, received: number): Promise<Buffer> {
    const beyond = Math.min(chunk.length, Math.max(0, received - this.openedSize));
    if (beyond < chunk.length) await this.content!.write(beyond > 0 ? chunk.subarray(0, chunk.length - beyond) : chunk);
    return chunk.subarray(chunk.length - beyond);
  }

  /** At the end of the part: the key of the stored file. */
  finish(file: { size: number; sha256: string; rest?: () => Readable }): Promise<string> {
    return this.content!.finish(file);
  }

  /** Removes whatever the early store holds; safe to call at any point, and more than once. */
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
    const contentStart = Buffer.concat(this.rawHead).indexOf(head.subarray(0, startMarkerBytes));
    if (contentStart < 0) return undefined;
    const size = this.options.declaredBodyBytes - contentStart - closing.length;
    return size > 0 && size <= maximumFileBytes ? size : undefined;
  }
}

/** What follows the last part: CRLF, the boundary with its closing dashes, CRLF. */
function closingDelimiter(contentType: string): string | undefined {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  return boundary ? `\r\n--${boundary[1] ?? boundary[2]}--\r\n` : undefined;
}
