import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';
import { filesBucket as filesBucketLayout } from '../src/infrastructure/resource-definitions.ts';
import { resourcesOfKind, theResource, type QueueResource, type ResourceDefinition } from '../src/platform/resource-table.ts';

/** A queue row deployed: the queue, its dead-letter queue, and the alarm on the latter. */
export interface DeployedQueue {
  queue: Queue;
  deadLetterQueue: Queue;
  /** Any message in the dead-letter queue: a poison message or a consumer that keeps failing. */
  deadLetterAlarm: Alarm;
}

/**
 * The stateful resources, created from the rows of the resource table (src/manifest/resources.ts),
 * which the embedded local stack provisions too, so both have the same keys, indexes, TTL attribute,
 * expiration and redrive settings. One queue row is one `DeployedQueue` here.
 */
export class PaperflowStorage extends Construct {
  readonly recordsTable: Table;
  readonly filesBucket: Bucket;
  /** Every queue row's queue, by the row's name. */
  readonly queues = new Map<string, DeployedQueue>();
  /** Encrypts the data keys of webhook signing secrets (envelope encryption, docs/webhooks.md). */
  readonly signingKey: Key;
  /** Encrypts the records, the files, and every queue at rest (customer managed, rotated yearly). */
  readonly dataKey: Key;
  /** S3 server access logs of the files bucket. */
  readonly accessLogsBucket: Bucket;
  /**
   * Events that functions invoked asynchronously (schedules, bucket notifications) could not handle
   * after Lambda's and EventBridge's own retries: their dead-letter queue, watched by an alarm.
   */
  readonly asyncInvocationFailureQueue: Queue;
  readonly asyncInvocationFailureAlarm: Alarm;

  constructor(scope: Construct, id: string, resources: readonly ResourceDefinition[]) {
    super(scope, id);
    const recordsTable = theResource(resources, 'table');
    const filesBucket = theResource(resources, 'bucket');
    const signingKey = theResource(resources, 'key');

    this.dataKey = new Key(this, 'DataKey', {
      description: 'Paperflow: encrypts the records table, the files bucket and the queues at rest',
      enableKeyRotation: true,
      // The table and the bucket outlive the stack; their data must stay readable after a delete.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    // EventBridge writes undeliverable schedule events into the (encrypted) failure queue itself, with
    // its service principal rather than a role this stack could grant.
    this.dataKey.grant(new ServicePrincipal('events.amazonaws.com'), 'kms:GenerateDataKey', 'kms:Decrypt');

    this.recordsTable = new Table(this, recordsTable.id, {
      partitionKey: { name: recordsTable.partitionKey, type: AttributeType.STRING },
      sortKey: { name: recordsTable.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.dataKey,
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

    // S3 delivers server access logs only into an SSE-S3 bucket, written by the logging service
    // principal through the bucket policy CDK adds (@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy).
    this.accessLogsBucket = new Bucket(this, 'FilesAccessLogs', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'ExpireAccessLogs', expiration: Duration.days(filesBucketLayout.accessLogExpirationDays) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledgeNagFinding(this.accessLogsBucket, 'AwsSolutions-S1', 'The access-log bucket itself: logging its own writes into itself would loop, and a second log bucket only moves the question.');

    this.filesBucket = new Bucket(this, filesBucket.id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.KMS,
      encryptionKey: this.dataKey,
      // One data key per bucket rather than per object: far fewer KMS calls for the same protection.
      bucketKeyEnabled: true,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'files/',
      // A rule for each prefix that expires; the others are removed with their records.
      lifecycleRules: filesBucket.prefixes
        .filter((prefix) => prefix.expirationDays !== undefined)
        .map((prefix) => ({
          id: prefix.ruleId,
          prefix: prefix.prefix,
          expiration: Duration.days(prefix.expirationDays!),
          ...(prefix.abortIncompleteUploadsAfterDays ? { abortIncompleteMultipartUploadAfter: Duration.days(prefix.abortIncompleteUploadsAfterDays) } : {}),
        })),
      // Pre-signed POST uploads and the review console's pre-signed GETs (filesBucket.corsRules says why).
      cors: filesBucket.corsRules.map((rule) => ({
        allowedMethods: rule.allowedMethods.map((method) => HttpMethods[method]),
        allowedOrigins: [...rule.allowedOrigins],
        allowedHeaders: [...rule.allowedHeaders],
        exposedHeaders: [...rule.exposedHeaders],
        maxAge: rule.maxAgeSeconds,
      })),
      removalPolicy: RemovalPolicy.RETAIN,
    });

    for (const queue of resourcesOfKind(resources, 'queue')) this.queues.set(queue.name, this.queueWithDeadLetters(queue));

    this.asyncInvocationFailureQueue = new Queue(this, 'AsyncInvocationFailures', {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: this.dataKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeDeadLetterQueueHasNoRedrive(this.asyncInvocationFailureQueue);
    this.asyncInvocationFailureAlarm = new Alarm(this, 'AsyncInvocationFailuresAlarm', {
      alarmDescription: 'Paperflow: a scheduled or bucket-notification invocation failed after its retries (docs/deployment.md)',
      metric: this.asyncInvocationFailureQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.signingKey = new Key(this, signingKey.id, {
      description: signingKey.description,
      enableKeyRotation: true,
      // Deleting the key would make every stored signing secret unreadable; it outlives the stack.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** The queue a row names; a name the resource table lacks is an error naming it. */
  queueNamed(name: string): Queue {
    const deployed = this.queues.get(name);
    if (!deployed) throw new Error(`No queue row is named ${name} in the resource table (src/manifest/resources.ts).`);
    return deployed.queue;
  }

  private queueWithDeadLetters(row: QueueResource): DeployedQueue {
    const deadLetterQueue = new Queue(this, row.deadLetterQueueId, {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: this.dataKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeDeadLetterQueueHasNoRedrive(deadLetterQueue);
    const queue = new Queue(this, row.id, {
      encryption: QueueEncryption.KMS,
      encryptionMasterKey: this.dataKey,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(row.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: row.maxReceiveCount },
    });
    const deadLetterAlarm = new Alarm(this, `${row.deadLetterQueueId}Alarm`, {
      alarmDescription: row.deadLetterAlarmDescription,
      metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    return { queue, deadLetterQueue, deadLetterAlarm };
  }
}

function acknowledgeDeadLetterQueueHasNoRedrive(queue: Queue): void {
  acknowledgeNagFinding(
    queue,
    'Serverless-SQSRedrivePolicy',
    'A dead-letter queue: a redrive from it would only move failed messages once more; its alarm calls an operator instead.',
  );
}
