import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { EventPayloadDeletion } from '../expired-event-purge.ts';

/** The large payloads of expired events, removed from the files bucket by the purge. */
export class S3EventPayloadDeletion implements EventPayloadDeletion {
  constructor(
    private readonly client: S3Client,
    private readonly bucketName: () => string,
  ) {}

  async delete(objectKey: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName(), Key: objectKey }));
  }
}
