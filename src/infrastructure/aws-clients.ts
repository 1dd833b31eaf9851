import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';

// Clients are created once per module (reused across invocations). Endpoints come from the SDK's own
// configuration: AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> point them at LocalStack or the
// embedded emulators, so local runs need no code path of their own. S3 emulators serve buckets by
// path rather than by virtual host, which PAPERFLOW_S3_FORCE_PATH_STYLE switches on.
let documentClient: DynamoDBDocumentClient | undefined;
let s3: S3Client | undefined;
let sqs: SQSClient | undefined;

export function dynamoDocumentClient(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return documentClient;
}

export function s3Client(): S3Client {
  s3 ??= new S3Client({ forcePathStyle: process.env.PAPERFLOW_S3_FORCE_PATH_STYLE === 'true' });
  return s3;
}

export function sqsClient(): SQSClient {
  sqs ??= new SQSClient({});
  return sqs;
}
