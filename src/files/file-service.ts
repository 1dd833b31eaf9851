import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { PayloadTooLargeError, ValidationError } from '../platform/errors.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';
import { sniffContent } from './content-sniffing.ts';
import { parseUploadObjectKey, snapshotObjectKey, uploadObjectKey, type FileBlobStore } from './file-blobs.ts';
import { cleanFileName } from './file-names.ts';
import { FileLookup, type ContentUrlSigner, type FileView } from './file-lookup.ts';
import { defaultFileUrlLifetimes, maximumFileBytes, sniffedHeadBytes, type FileUrlLifetimes } from './file-limits.ts';
import type { BlockedReason, FileRecord, FileRecordStore } from './file-records.ts';
import { HeadCollector } from './multipart-upload.ts';
import type { UploadForm, UploadFormSigner } from './upload-forms.ts';

export interface UploadSession {
  fileId: string;
  fileName: string;
  status: 'pending_upload';
  createdAt: string;
  upload: UploadForm;
}

export interface DeclaredUpload {
  fileName: string;
  size: number;
  mimeType: string;
}

export type FinalizeOutcome = 'ready' | 'blocked' | 'not_pending' | 'not_ours';

export class FileService {
  private readonly lookup: FileLookup;

  constructor(
    private readonly records: FileRecordStore,
    private readonly blobs: FileBlobStore,
    contentUrls: ContentUrlSigner,
    private readonly uploadForms: UploadFormSigner,
    private readonly now: () => Date = () => new Date(),
    private readonly urlLifetimes: FileUrlLifetimes = defaultFileUrlLifetimes,
  ) {
    this.lookup = new FileLookup(records, contentUrls, now, urlLifetimes.contentUrlSeconds);
  }

  /** `POST /files` with JSON: a pending record and a pre-signed POST for the bytes (deployed path). */
  async createUploadSession(workspaceId: string, declared: DeclaredUpload): Promise<UploadSession> {
    if (declared.size > maximumFileBytes) throw new PayloadTooLargeError();
    const fileName = cleanFileName(declared.fileName);
    if (!fileName) throw new ValidationError([{ field: 'fileName', issue: 'The file name has no readable characters.' }]);
    const fileId = newIdentifier('file');
    const createdAt = this.now();
    // The record points at the upload key until finalization points it at the checked snapshot.
    const objectKey = uploadObjectKey(workspaceId, fileId);
    const upload = await this.uploadForms.uploadForm(objectKey, maximumFileBytes, this.urlLifetimes.uploadUrlSeconds, createdAt);
    await this.records.create({
      fileId,
      workspaceId,
      fileName,
      mimeType: declared.mimeType,
      size: declared.size,
      status: 'pending_upload',
      createdAt: createdAt.toISOString(),
      objectKey,
    });
    return { fileId, fileName, status: 'pending_upload', createdAt: createdAt.toISOString(), upload };
  }

  /** `GET /files/{fileId}`: the record, plus a freshly signed `contentUrl` when the file is ready. */
  getFile(workspaceId: string, fileId: string): Promise<FileView> {
    return this.lookup.getFile(workspaceId, fileId);
  }

  /**
   * Runs when an object lands under an upload key. The client may POST to its pre-signed form again
   * until the form expires, so what gets checked is an immutable snapshot: the upload is copied to a
   * key of its own that no client can write, the upload key is emptied, and the snapshot is sized
   * (emulators do not enforce the POST policy), sniffed like a direct upload and hashed. The record
   * turns `ready` pointing at that snapshot only if it is still pending, so concurrent or repeated
   * uploads can never leave a record describing other bytes than the ones served.
   */
  async finalizeUploadedObject(objectKey: string): Promise<FinalizeOutcome> {
    const owner = parseUploadObjectKey(objectKey);
    if (!owner) return 'not_ours';
    const record = await this.records.get(owner.workspaceId, owner.fileId);
    if (record?.status !== 'pending_upload') {
      // A repeated POST after finalization (or an upload without a session): nothing will serve it.
      if (record) await this.blobs.delete(objectKey);
      return 'not_pending';
    }

    const snapshotKey = snapshotObjectKey(owner.workspaceId, owner.fileId);
    const copied = await this.blobs.copy(objectKey, snapshotKey);
    if (!copied) return 'not_pending'; // a concurrent run took this upload
    await this.blobs.delete(objectKey);

    const size = (await this.blobs.size(snapshotKey)) ?? 0;
    const refusal = refusalBySize(size);
    if (refusal) return this.refuse(record, snapshotKey, refusal, size);
    const content = await this.inspectStoredObject(snapshotKey);
    if (!content.verdict.accepted) return this.refuse(record, snapshotKey, { code: 'UNSUPPORTED_MEDIA_TYPE', message: content.verdict.reason }, size);
    const marked = await this.records.markReady(owner.workspaceId, owner.fileId, {
      mimeType: content.verdict.mimeType,
      size,
      sha256: content.sha256,
      objectKey: snapshotKey,
    });
    if (!marked) await this.blobs.delete(snapshotKey); // another run finalized first; its snapshot is served
    return marked ? 'ready' : 'not_pending';
  }

  private async refuse(record: FileRecord, snapshotKey: string, reason: BlockedReason, size: number): Promise<FinalizeOutcome> {
    await this.blobs.delete(snapshotKey);
    await this.records.markBlocked(record.workspaceId, record.fileId, reason, size);
    return 'blocked';
  }

  /** Reads the object once: the head for sniffing, every byte for the SHA-256; stops early if blocked. */
  private async inspectStoredObject(objectKey: string) {
    const body = await this.blobs.read(objectKey);
    const hash = createHash('sha256');
    const head = new HeadCollector(sniffedHeadBytes);
    let verdict: Awaited<ReturnType<typeof sniffContent>> | undefined;
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        hash.update(chunk);
        if (!verdict && head.add(chunk)) {
          verdict = await sniffContent(head.bytes(), false);
          if (!verdict.accepted) break;
        }
      }
    } finally {
      body.destroy();
    }
    verdict ??= await sniffContent(head.bytes(), true);
    return { verdict, sha256: hash.digest('hex') };
  }
}

function refusalBySize(size: number): BlockedReason | undefined {
  if (size > maximumFileBytes) return { code: 'PAYLOAD_TOO_LARGE', message: `The file is ${size} bytes; the limit is ${maximumFileBytes} bytes (50 MB).` };
  if (size === 0) return { code: 'VALIDATION_FAILED', message: 'The file is empty (0 bytes).' };
  return undefined;
}
