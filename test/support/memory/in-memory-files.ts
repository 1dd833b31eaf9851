import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { SignedUrl } from '../../../src/files/content-urls.ts';
import type { EarlyStoredContent } from '../../../src/files/early-copy.ts';
import type { FileBlobStore } from '../../../src/files/file-blobs.ts';
import type { ContentUrlSigner } from '../../../src/files/file-lookup.ts';
import type { BlockedReason, FileRecord, FileRecordStore } from '../../../src/files/file-records.ts';
import type { UploadForm, UploadFormSigner } from '../../../src/files/upload-forms.ts';

// The files domain's ports over Maps, for unit tests without an emulator: the records table's
// conditions (create once, mark only from pending_upload) and the bucket's checks (the SHA-256 a put
// carries must match the bytes kept).

export class InMemoryFileRecordStore implements FileRecordStore {
  readonly records = new Map<string, FileRecord>();

  async create(record: FileRecord): Promise<void> {
    const name = nameOf(record.workspaceId, record.fileId);
    if (this.records.has(name)) throw new Error(`File ${record.fileId} is already recorded.`);
    this.records.set(name, structuredClone(record));
  }

  async get(workspaceId: string, fileId: string): Promise<FileRecord | undefined> {
    const record = this.records.get(nameOf(workspaceId, fileId));
    return record ? structuredClone(record) : undefined;
  }

  async delete(workspaceId: string, fileId: string): Promise<void> {
    this.records.delete(nameOf(workspaceId, fileId));
  }

  async markReady(workspaceId: string, fileId: string, content: { mimeType: string; size: number; sha256: string; objectKey: string }): Promise<boolean> {
    return this.updatePending(workspaceId, fileId, { status: 'ready', ...content });
  }

  async markBlocked(workspaceId: string, fileId: string, blockedReason: BlockedReason, size: number): Promise<boolean> {
    return this.updatePending(workspaceId, fileId, { status: 'blocked', blockedReason, size });
  }

  private updatePending(workspaceId: string, fileId: string, change: Partial<FileRecord>): boolean {
    const record = this.records.get(nameOf(workspaceId, fileId));
    if (record?.status !== 'pending_upload') return false;
    Object.assign(record, structuredClone(change));
    return true;
  }
}

const nameOf = (workspaceId: string, fileId: string) => `${workspaceId}/${fileId}`;

export class InMemoryFileBlobStore implements FileBlobStore {
  readonly objects = new Map<string, Buffer>();

  async putFile(objectKey: string, path: string, content: { size: number; sha256: string; mimeType: string }): Promise<void> {
    const bytes = await readFile(path);
    if (bytes.length !== content.size) throw new Error(`${objectKey}: ${bytes.length} bytes, told ${content.size}.`);
    this.keep(objectKey, bytes, content.sha256);
  }

  startPut(objectKey: string, content: { size: number; mimeType: string }): EarlyStoredContent {
    const received: Buffer[] = [];
    let receivedBytes = 0;
    let storedKey: string | undefined;
    return {
      write: async (chunk) => {
        if (receivedBytes + chunk.length > content.size) throw new Error(`${objectKey}: more than the ${content.size} bytes opened.`);
        received.push(chunk);
        receivedBytes += chunk.length;
      },
      finish: async (file) => {
        const head = Buffer.concat(received).subarray(0, Math.min(file.size, content.size));
        const exact = file.rest ? Buffer.concat([head, await buffer(file.rest())]) : head;
        storedKey = file.size === content.size ? objectKey : `${objectKey}/${randomUUID()}`;
        this.keep(storedKey, exact, file.sha256);
        return storedKey;
      },
      discard: async () => {
        if (storedKey) this.objects.delete(storedKey);
      },
    };
  }

  async size(objectKey: string): Promise<number | undefined> {
    return this.objects.get(objectKey)?.length;
  }

  async copy(sourceKey: string, targetKey: string): Promise<boolean> {
    const source = this.objects.get(sourceKey);
    if (!source) return false;
    this.objects.set(targetKey, Buffer.from(source));
    return true;
  }

  async read(objectKey: string): Promise<Readable> {
    const bytes = this.objects.get(objectKey);
    if (!bytes) throw new Error(`No object ${objectKey}.`);
    return Readable.from([bytes]);
  }

  async delete(objectKey: string): Promise<void> {
    this.objects.delete(objectKey);
  }

  private keep(objectKey: string, bytes: Buffer, sha256: string): void {
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== sha256) throw new Error(`${objectKey}: the bytes do not match the SHA-256 sent with them.`);
    this.objects.set(objectKey, bytes);
  }
}

/** Links that say what they would download, valid for the lifetime asked. */
export class InMemoryContentUrls implements ContentUrlSigner {
  async contentUrl(objectKey: string, download: { fileName: string; mimeType: string }, lifetimeSeconds: number, now: Date): Promise<SignedUrl> {
    const url = `memory://files/${objectKey}?name=${encodeURIComponent(download.fileName)}&type=${encodeURIComponent(download.mimeType)}`;
    return { url, expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000).toISOString() };
  }
}

/** Forms that name the key they write and the size they allow. */
export class InMemoryUploadForms implements UploadFormSigner {
  async uploadForm(objectKey: string, maximumBytes: number, lifetimeSeconds: number, now: Date): Promise<UploadForm> {
    return {
      url: 'memory://uploads',
      fields: { key: objectKey, 'content-length-range': `1,${maximumBytes}` },
      expiresAt: new Date(now.getTime() + lifetimeSeconds * 1000).toISOString(),
    };
  }
}
