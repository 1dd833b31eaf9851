import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Aspects } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../lib/paperflow-function.ts';
import { PaperflowStack } from '../../lib/paperflow-stack.ts';
import { triggers } from '../../src/manifest/triggers.ts';
import { triggersOfKind } from '../../src/platform/trigger-table.ts';
import { cdkTestApps } from '../support/cdk-test-apps.ts';

// The stack `cdk synth` deploys (the manifest's routes and triggers, so new features are checked
// without new code), with cdk-nag's AwsSolutions and Serverless packs. Bundling is skipped: the rules
// read the template, not the code, and the bundles are checked in paperflow-stack.test.ts.
const cdkContext = JSON.parse(readFileSync(path.join(repositoryRoot, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
const apps = cdkTestApps(cdkContext);
afterAll(() => apps.removeAll());
const nagRule = Match.stringLikeRegexp('AwsSolutions-.*|Serverless-.*|CdkNagValidationFailure.*');

interface NagSuppression {
  id: string;
  reason: string;
  applies_to?: unknown[];
}

let stack: PaperflowStack;
let template: Template;

beforeAll(() => {
  const app = apps.app({ 'aws:cdk:bundling-stacks': [] });
  stack = new PaperflowStack(app, 'PaperflowNag');
  Aspects.of(app).add(new AwsSolutionsChecks());
  Aspects.of(app).add(new ServerlessChecks());
  template = Template.fromStack(stack);
});

function findings(kind: 'findError' | 'findWarning'): string[] {
  return Annotations.fromStack(stack)[kind]('*', nagRule).map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`);
}

function suppressions(): NagSuppression[] {
  return Object.values(template.toJSON().Resources as Record<string, { Metadata?: { cdk_nag?: { rules_to_suppress: NagSuppression[] } } }>).flatMap(
    (resource) => resource.Metadata?.cdk_nag?.rules_to_suppress ?? [],
  );
}

describe('cdk-nag', () => {
  it('finds no AwsSolutions or Serverless error', () => {
    expect(findings('findError')).toEqual([]);
  });

  it('finds no AwsSolutions or Serverless warning', () => {
    expect(findings('findWarning')).toEqual([]);
  });

  it('acknowledges every remaining finding with a reason, and docs/deployment.md lists each rule', () => {
    const deploymentDoc = readFileSync(path.join(repositoryRoot, 'docs/deployment.md'), 'utf8');
    const acknowledged = suppressions();

    expect(acknowledged.length).toBeGreaterThan(0);
    for (const suppression of acknowledged) expect(suppression.reason.length, suppression.id).toBeGreaterThan(40);
    for (const ruleId of new Set(acknowledged.map((suppression) => suppression.id))) {
      expect(deploymentDoc, `docs/deployment.md should explain ${ruleId}`).toContain(`\`${ruleId}\``);
    }
  });

  it('acknowledges IAM wildcards finding by finding, never a whole rule on a role', () => {
    const wildcardAcknowledgements = suppressions().filter((suppression) => suppression.id === 'AwsSolutions-IAM5');

    expect(wildcardAcknowledgements.length).toBeGreaterThan(0);
    for (const suppression of wildcardAcknowledgements) expect(suppression.applies_to?.length, suppression.reason).toBeGreaterThan(0);
  });
});

describe('encryption, logging and recovery cdk-nag asks for', () => {
  it('encrypts the table, the files bucket and every queue with the stack\'s customer managed key', () => {
    const dataKey = { 'Fn::GetAtt': [stack.getLogicalId(stack.storage.dataKey.node.defaultChild as never), 'Arn'] };

    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: dataKey },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: dataKey } }],
      },
      LoggingConfiguration: { DestinationBucketName: { Ref: stack.getLogicalId(stack.storage.accessLogsBucket.node.defaultChild as never) } },
    });
    const queues = Object.values(template.findResources('AWS::SQS::Queue'));
    expect(queues.length).toBeGreaterThanOrEqual(3);
    for (const queue of queues) expect(queue.Properties.KmsMasterKeyId).toEqual(dataKey);
    template.allResourcesProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  it('makes every bucket and queue refuse plain HTTP', () => {
    const denyInsecure = Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } });
    template.resourceCountIs('AWS::S3::BucketPolicy', Object.keys(template.findResources('AWS::S3::Bucket')).length);
    template.allResourcesProperties('AWS::S3::BucketPolicy', { PolicyDocument: { Statement: Match.arrayWith([denyInsecure]) } });
    template.resourceCountIs('AWS::SQS::QueuePolicy', Object.keys(template.findResources('AWS::SQS::Queue')).length);
  });

  it('logs every API request as one JSON line, errors of execution, and throttles the stage', () => {
    const [stage] = Object.values(template.findResources('AWS::ApiGateway::Stage'));
    const properties = stage!.Properties as Record<string, any>;

    expect(JSON.parse(properties.AccessLogSetting.Format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
    expect(properties.MethodSettings).toContainEqual(
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', LoggingLevel: 'ERROR', DataTraceEnabled: false, ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 }),
    );
    template.hasResourceProperties('AWS::ApiGateway::RequestValidator', { ValidateRequestBody: true, ValidateRequestParameters: true });
  });

  it('logs every state machine transition without execution data, and traces it', () => {
    template.allResourcesProperties('AWS::StepFunctions::StateMachine', {
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
    });
  });

  it('dead-letters the asynchronous invocations of schedules and bucket notifications, and only those', () => {
    const failureQueue = { 'Fn::GetAtt': [stack.getLogicalId(stack.storage.asyncInvocationFailureQueue.node.defaultChild as never), 'Arn'] };
    const withDeadLetters = template.findResources('AWS::Lambda::Function', { Properties: { DeadLetterConfig: { TargetArn: failureQueue } } });
    const asyncRows = [...triggersOfKind(triggers, 'schedule'), ...triggersOfKind(triggers, 'bucketNotification')];
    const asyncLogicalIds = asyncRows.map((row) => stack.getLogicalId(stack.triggers.functions.get(row.name)!.node.defaultChild as never));

    expect(asyncRows.length).toBeGreaterThan(0);
    expect(Object.keys(withDeadLetters).sort()).toEqual(asyncLogicalIds.sort());
    for (const rule of Object.values(template.findResources('AWS::Events::Rule'))) {
      for (const target of rule.Properties.Targets) expect(target.DeadLetterConfig).toEqual({ Arn: failureQueue });
    }
  });

  it('gives each function a role that writes only its own log group, with no managed policy', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter(
      (fn) => !String(fn.Properties.Runtime).startsWith('python'),
    );
    const roles = template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, any> }>;
    for (const fn of functions) {
      const role = roles[fn.Properties.Role['Fn::GetAtt'][0]]!;
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});
