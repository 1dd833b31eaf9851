import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { RunStore, type RunValueObjects } from './run-store.ts';
import { RunViews } from './run-views.ts';
import { WorkflowStore } from './workflow-store.ts';

// The stores and the read side of runs, built from the environment the stack sets. Nothing here may
// import the engine (expressions, step types, Step Functions): the read handlers bundle only this.

export function workflowStore(): WorkflowStore {
  return new WorkflowStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

/** Large run values live in the files bucket, named when one is touched (most reads never need S3). */
function runValueObjects(): RunValueObjects {
  const bucketName = () => requiredEnvironment(resourceEnvironment.filesBucketName);
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

export function runStore(): RunStore {
  return new RunStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), runValueObjects());
}

export function runViews(): RunViews {
  return new RunViews(runStore());
}
