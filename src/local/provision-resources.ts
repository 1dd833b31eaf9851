import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
} from '@aws-sdk/client-dynamodb';
import {
  CreateBucketCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  S3Client,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { CreateAliasCommand, CreateKeyCommand, DescribeKeyCommand, KMSClient, NotFoundException } from '@aws-sdk/client-kms';
import { CreateQueueCommand, GetQueueAttributesCommand, GetQueueUrlCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { sdkLogger } from '../infrastructure/logger.ts';
import type { TableDefinition } from '../infrastructure/resource-definitions.ts';
import { resources as manifestResources } from '../manifest/resources.ts';
import { resourcesOfKind, theResource, type BucketResource, type QueueResource, type ResourceDefinition } from '../platform/resource-table.ts';

export interface ProvisionedResources {
  recordsTableName: string;
  filesBucketName: string;
  /** Every queue row's URL, by the row's name. */
  queueUrls: Record<string, string>;
  /** The delivery queue's URL (`queueUrls.webhookDelivery`), which many tests read. */
  webhookDeliveryQueueUrl: string;
  /** Each provisioned resource's variable (its row's `environmentVariable`) and value. */
  environment: Record<string, string>;
}

/**
 * Creates the stack's table, bucket and queues on an AWS-compatible endpoint (the embedded emulators,
 * LocalStack, moto) from the resource table the CDK stack deploys (`table`, the manifest's unless a
 * test extends it). Idempotent: existing ones are kept. State machines are the local Step Functions'
 * (src/local/local-triggers.ts); the signing key is `provisionSigningKey`'s or a key file.
 */
export async function provisionResources(names: { prefix: string }, table: readonly ResourceDefinition[] = manifestResources): Promise<ProvisionedResources> {
  const recordsTable = theResource(table, 'table');
  const filesBucket = theResource(table, 'bucket');
  const recordsTableName = `${names.prefix}-records`;
  const filesBucketName = `${names.prefix}-files`;
  await createTable(new DynamoDBClient({ logger: sdkLogger }), recordsTableName, recordsTable);
  await createBucket(new S3Client({ forcePathStyle: true, logger: sdkLogger }), filesBucketName, filesBucket);
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false, logger: sdkLogger });
  const queueUrls: Record<string, string> = {};
  const environment: Record<string, string> = { [recordsTable.environmentVariable]: recordsTableName, [filesBucket.environmentVariable]: filesBucketName };
  for (const queue of resourcesOfKind(table, 'queue')) {
    queueUrls[queue.name] = await createQueueWithDeadLetters(sqs, `${names.prefix}-${queue.localName}`, queue);
    environment[queue.environmentVariable] = queueUrls[queue.name]!;
  }
  return { recordsTableName, filesBucketName, queueUrls, webhookDeliveryQueueUrl: queueUrls.webhookDelivery!, environment };
}

/**
 * On an external endpoint (LocalStack, moto), the customer-managed key of signing secrets, found again
 * by its alias on the next start; its ARN is what the deployed functions get in PAPERFLOW_SIGNING_KEY_ID.
 */
export async function provisionSigningKey(names: { prefix: string }): Promise<string> {
  const client = new KMSClient({});
  const alias = `alias/${names.prefix}-signing-secrets`;
  try {
    const { KeyMetadata } = await client.send(new DescribeKeyCommand({ KeyId: alias }));
    return KeyMetadata!.Arn!;
  } catch (error) {
    if (!(error instanceof NotFoundException)) throw error;
  }
  const { KeyMetadata } = await client.send(new CreateKeyCommand({ Description: 'Paperflow local: webhook signing secrets', KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT' }));
  await client.send(new CreateAliasCommand({ AliasName: alias, TargetKeyId: KeyMetadata!.KeyId! }));
  return KeyMetadata!.Arn!;
}

async function createTable(client: DynamoDBClient, tableName: string, definition: TableDefinition): Promise<void> {
  const keyNames = [
    definition.partitionKey,
    definition.sortKey,
    ...definition.globalSecondaryIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  const attributeDefinitions: AttributeDefinition[] = [...new Set(keyNames)].map((name) => ({ AttributeName: name, AttributeType: 'S' }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: attributeDefinitions,
        KeySchema: [
          { AttributeName: definition.partitionKey, KeyType: 'HASH' },
          { AttributeName: definition.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilTableActive(client, tableName);
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
      }),
    );
  } catch {
    // Some emulators (dynalite) do not implement TTL, and an enabled TTL cannot be enabled twice;
    // expiry is a storage-cost concern, never relied on for correctness.
  }
}

async function waitUntilTableActive(client: DynamoDBClient, tableName: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    const indexesActive = (Table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (Table?.TableStatus === 'ACTIVE' && indexesActive) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Table ${tableName} did not become active.`);
}

async function createBucket(client: S3Client, bucketName: string, filesBucket: BucketResource): Promise<void> {
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucketName }));
  } catch (error) {
    const name = (error as S3ServiceException).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  }
  try {
    await client.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: bucketName,
        LifecycleConfiguration: {
          Rules: filesBucket.prefixes
            .filter((prefix) => prefix.expirationDays !== undefined)
            .map((prefix) => ({ ID: prefix.ruleId, Status: 'Enabled', Filter: { Prefix: prefix.prefix }, Expiration: { Days: prefix.expirationDays } })),
        },
      }),
    );
  } catch {
    // s3rver does not implement lifecycle rules; the deployed bucket gets its rule from CDK.
  }
  // The same CORS rules as the deployed bucket: the review console, on the gateway's origin, reads
  // documents from their pre-signed contentUrl on the S3 endpoint's.
  await client.send(
    new PutBucketCorsCommand({
      Bucket: bucketName,
      CORSConfiguration: {
        CORSRules: filesBucket.corsRules.map((rule) => ({
          AllowedMethods: [...rule.allowedMethods],
          AllowedOrigins: [...rule.allowedOrigins],
          AllowedHeaders: [...rule.allowedHeaders],
          ExposeHeaders: [...rule.exposedHeaders],
          MaxAgeSeconds: rule.maxAgeSeconds,
        })),
      },
    }),
  );
}

/** Tests of redelivery shorten the wait before a failed message comes back (the row's local variable); deployed it is the row's. */
function localVisibilityTimeoutSeconds(queue: QueueResource): number {
  const configured = Number(queue.localVisibilityTimeoutVariable ? process.env[queue.localVisibilityTimeoutVariable] : undefined);
  return Math.round(Number.isFinite(configured) && configured > 0 ? configured : queue.visibilityTimeoutSeconds);
}

async function createQueueWithDeadLetters(client: SQSClient, queueName: string, queue: QueueResource): Promise<string> {
  const deadLetters = await client.send(new CreateQueueCommand({ QueueName: `${queueName}-dead-letters` }));
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: deadLetters.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const attributes = {
    VisibilityTimeout: String(localVisibilityTimeoutSeconds(queue)),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: queue.maxReceiveCount }),
  };
  try {
    const created = await client.send(new CreateQueueCommand({ QueueName: queueName, Attributes: attributes }));
    return created.QueueUrl!;
  } catch (error) {
    // SQS refuses CreateQueue for an existing queue whose attributes differ (a data folder or an
    // endpoint provisioned by an earlier version, or with another visibility timeout): the queue is
    // kept, messages and all, and brought to the attributes this version defines.
    // The JSON protocol names it QueueAlreadyExists, the query protocol's compatible code QueueNameExists.
    if (!/(QueueNameExists|QueueAlreadyExists)$/.test((error as Error).name)) throw error;
    const { QueueUrl } = await client.send(new GetQueueUrlCommand({ QueueName: queueName }));
    await client.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: attributes }));
    return QueueUrl!;
  }
}
