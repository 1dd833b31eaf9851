// Moved: one module per service (dynamodb-client.ts, s3-client.ts, sqs-client.ts, sfn-client.ts),
// so that a Lambda bundle carries only the SDK clients its handler uses.
export { dynamoDocumentClient } from './dynamodb-client.ts';
export { s3Client } from './s3-client.ts';
export { sqsClient } from './sqs-client.ts';
export { sfnClient } from './sfn-client.ts';
