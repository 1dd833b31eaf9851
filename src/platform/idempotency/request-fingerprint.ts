import { createHash, type Hash } from 'node:crypto';

// What makes two requests "the same request" for an Idempotency-Key: the method, the path and the
// body. A multipart form's bytes differ on every send by their boundary alone (clients draw a random
// one each time), so a form's digest replaces each occurrence of its boundary with one fixed mark:
// the same parts (names, file names, part headers, contents), in the same order, give the same digest.

/** What a request is compared by; `mediaType` without its parameters (charset, boundary), lower case. */
export interface RequestIdentity {
  method: string;
  path: string;
  mediaType: string;
}

/**
 * A request's fingerprint, known up front when its body was buffered, or once a streamed body has
 * been read (the embedded stack streams multipart uploads into the handler as they arrive).
 */
export interface RequestFingerprint {
  /** Known before the request runs; undefined while a streamed body is still to be read. */
  readonly known: string | undefined;
  /** For a request that will not run: reads its body to the end. Undefined when the client left before the end. */
  read(): Promise<string | undefined>;
  /**
   * After the request ran and answered `status`: undefined when its body was not read to the end (a
   * refusal before it all arrived). A success took the whole body, so what its handler left unread (a
   * form's epilogue, still on its way) is read here.
   */
  afterRun(status: number): Promise<string | undefined>;
}

/** SHA-256 of a request body, fed in chunks as they arrive; a form's boundary does not count. */
export class BodyDigest {
  private readonly hash: Hash = createHash('sha256');
  private readonly boundary: Buffer | undefined;
  /** The tail of the bytes so far that may be the start of a boundary the next chunk completes. */
  private pending: Buffer = Buffer.alloc(0);

  constructor(contentType: string | undefined) {
    const boundary = boundaryOf(contentType);
    this.boundary = boundary ? Buffer.from(boundary, 'latin1') : undefined;
  }

  update(chunk: Buffer): void {
    if (!this.boundary) {
      this.hash.update(chunk);
      return;
    }
    const data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let start = 0;
    for (let index = data.indexOf(this.boundary, start); index !== -1; index = data.indexOf(this.boundary, start)) {
      this.hash.update(data.subarray(start, index));
      this.hash.update(boundaryMark);
      start = index + this.boundary.length;
    }
    const keptFrom = Math.max(start, data.length - (this.boundary.length - 1));
    this.hash.update(data.subarray(start, keptFrom));
    this.pending = Buffer.from(data.subarray(keptFrom));
  }

  digest(): string {
    this.hash.update(this.pending);
    return this.hash.digest('hex');
  }
}

// Cannot be a boundary: RFC 2046 boundaries are 1-70 characters without NUL.
const boundaryMark = Buffer.from('\u0000boundary\u0000', 'latin1');

/** The fingerprint of a request whose body digest is known. */
export function fingerprintOf(identity: RequestIdentity, bodyDigest: string): string {
  return createHash('sha256')
    .update(JSON.stringify([identity.method.toUpperCase(), identity.path, identity.mediaType, bodyDigest]))
    .digest('hex');
}

/** The fingerprint of a request whose whole body is at hand (every body API Gateway passes). */
export function bufferedRequestFingerprint(identity: RequestIdentity, contentType: string | undefined, body: Buffer): RequestFingerprint {
  const digest = new BodyDigest(contentType);
  digest.update(body);
  const fingerprint = fingerprintOf(identity, digest.digest());
  return { known: fingerprint, read: async () => fingerprint, afterRun: async () => fingerprint };
}

/** A multipart/form-data boundary parameter, quoted or not; undefined for any other content type. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType || !/^\s*multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}
