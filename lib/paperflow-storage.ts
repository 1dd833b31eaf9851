import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { filesBucket, recordsTable, webhookDeliveryQueue } from '../src/infrastructure/resource-definitions.ts';

/**
 * The stateful resources, created from the same definitions the embedded local stack uses, so both
 * have the same keys, indexes, TTL attribute, expiration and redrive settings.
 */
export class PaperflowStorage extends Construct {
  readonly recordsTable: Table;
  readonly filesBucket: Bucket;
  readonly deliveryQueue: Queue;
  readonly deliveryDeadLetterQueue: Queue;
  /** Any message in the delivery dead-letter queue: a poison message or a consumer that keeps failing. */
  readonly deliveryDeadLetterAlarm: Alarm;
  /** Encrypts the data keys of webhook signing secrets (envelope encryption, docs/webhooks.md). */
  readonly signingKey: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);

    this.recordsTable = new Table(this, recordsTable.id, {
      partitionKey: { name: recordsTable.partitionKey, type: AttributeType.STRING },
      sortKey: { name: recordsTable.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: recordsTable.timeToLiveAttribute,
      // Workspaces' records outlive a stack: deleting the stack leaves the table to be removed by hand.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of recordsTable.globalSecondaryIndexes) {
      this.recordsTable.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    this.filesBucket = new Bucket(this, filesBucket.id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [
        {
          id: 'ExpireStagedFiles',
          prefix: filesBucket.stagedObjectPrefix,
          expiration: Duration.days(filesBucket.stagedObjectExpirationDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        {
          id: 'ExpireEventPayloads',
          prefix: filesBucket.eventPayloadPrefix,
          expiration: Duration.days(filesBucket.eventPayloadExpirationDays),
        },
      ],
      // Browsers upload files larger than API Gateway's 10 MB straight to S3 with a pre-signed POST.
      cors: [
        {
          allowedMethods: [HttpMethods.POST],
          allowedOrigins: ['*'],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3000,
        },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deliveryDeadLetterQueue = new Queue(this, webhookDeliveryQueue.deadLetterQueueId, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.deliveryQueue = new Queue(this, webhookDeliveryQueue.id, {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(webhookDeliveryQueue.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deliveryDeadLetterQueue, maxReceiveCount: webhookDeliveryQueue.maxReceiveCount },
    });

    this.deliveryDeadLetterAlarm = new Alarm(this, 'WebhookDeliveriesDeadLettersAlarm', {
      alarmDescription: 'Paperflow: webhook delivery messages reached the dead-letter queue (docs/webhooks.md, Delivery protocol 7)',
      metric: this.deliveryDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.signingKey = new Key(this, 'WebhookSigningSecretsKey', {
      description: 'Paperflow: encrypts the data keys of webhook signing secrets',
      enableKeyRotation: true,
      // Deleting the key would make every stored signing secret unreadable; it outlives the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
