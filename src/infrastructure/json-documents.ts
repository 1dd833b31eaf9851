import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from './s3-client.ts';

/** JSON text kept as objects of the files bucket: values too large for their table item. */
export interface JsonDocuments {
  put(objectKey: string, body: string): Promise<void>;
  get(objectKey: string): Promise<string>;
}

/**
 * The files bucket as a JSON document store (event data, workflow run values). `bucketName` is asked
 * when an object is touched: most readers never need one, and their functions have no bucket access.
 */
export function jsonDocumentsInFilesBucket(bucketName: () => string): JsonDocuments {
  return {
    put: async (objectKey, body) => {
      await s3Client().send(new PutObjectCommand({ Bucket: bucketName(), Key: objectKey, Body: body, ContentType: 'application/json' }));
    },
    get: async (objectKey) => {
      const object = await s3Client().send(new GetObjectCommand({ Bucket: bucketName(), Key: objectKey }));
      return object.Body!.transformToString('utf8');
    },
  };
}
