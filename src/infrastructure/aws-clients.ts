import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SFNClient } from '@aws-sdk/client-sfn';

// Clients are created once per module (reused across invocations). Endpoints come from the SDK's own
// configuration: AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> point them at LocalStack or the
// embedded emulators, so local runs need no code path of their own. S3 emulators serve buckets by
// path rather than by virtual host, which PAPERFLOW_S3_FORCE_PATH_STYLE switches on. A client is
// rebuilt only when that configuration changes, as when a local stack restarts on new ports.

function cachedPerConfiguration<T>(configurationOf: () => string, create: () => T): () => T {
  let cached: { configuration: string; client: T } | undefined;
  return () => {
    const configuration = configurationOf();
    if (cached?.configuration !== configuration) cached = { configuration, client: create() };
    return cached.client;
  };
}

const endpointConfiguration = (service: string) => () =>
  [process.env.AWS_ENDPOINT_URL, process.env[`AWS_ENDPOINT_URL_${service}`], process.env.PAPERFLOW_S3_FORCE_PATH_STYLE].join('|');

export const dynamoDocumentClient = cachedPerConfiguration(endpointConfiguration('DYNAMODB'), () =>
  DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }),
);

export const s3Client = cachedPerConfiguration(
  endpointConfiguration('S3'),
  () => new S3Client({ forcePathStyle: process.env.PAPERFLOW_S3_FORCE_PATH_STYLE === 'true' }),
);

export const sqsClient = cachedPerConfiguration(endpointConfiguration('SQS'), () => new SQSClient({}));

export const sfnClient = cachedPerConfiguration(endpointConfiguration('SFN'), () => new SFNClient({}));
