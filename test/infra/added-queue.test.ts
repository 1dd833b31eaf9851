import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../lib/paperflow-function.ts';
import { PaperflowStack } from '../../lib/paperflow-stack.ts';
import { auditTrailConsumer, auditTrailQueue, resourcesWithAddedQueue, triggersWithAddedConsumer } from '../support/added-queue-fixture.ts';
import { cdkTestApps } from '../support/cdk-test-apps.ts';

// A queue added as one resource row plus its consumer's trigger row (test/support/added-queue-fixture.ts)
// is deployed with its dead-letter queue and alarm, its consumer gets the event source mapping, the
// queue's variable and the consume grants, and nothing else learns of it.
// test/integration/added-queue.test.ts serves the same tables locally.

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

const cdkContext = JSON.parse(readFileSync(path.join(repositoryRoot, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
const apps = cdkTestApps(cdkContext);
afterAll(() => apps.removeAll());

let stack: PaperflowStack;
let resources: Resources;

beforeAll(() => {
  // Bundling is the stack test's concern (test/infra/paperflow-stack.test.ts); this one reads the template.
  stack = new PaperflowStack(apps.app({ 'aws:cdk:bundling-stacks': [] }), 'AddedQueue', { resources: resourcesWithAddedQueue, triggers: triggersWithAddedConsumer });
  resources = Template.fromStack(stack).toJSON().Resources as Resources;
});

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as CfnElement);

function actionsOn(functionLogicalId: string, resourceLogicalId: string): string[] {
  const roleLogicalId = resources[functionLogicalId]!.Properties.Role['Fn::GetAtt'][0] as string;
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy' && (resource.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleLogicalId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
    .filter((statement) => JSON.stringify(statement.Resource).includes(`"${resourceLogicalId}"`))
    .flatMap((statement) => [statement.Action].flat());
}

describe('a queue added by one resource row and one consumer row, deployed', () => {
  it('is a queue with its dead-letter queue, redrive after the row\'s receive count, and an alarm on the dead letters', () => {
    const added = stack.storage.queues.get(auditTrailQueue.name)!;
    const queue = resources[logicalIdOf(added.queue)]!;
    const alarm = resources[logicalIdOf(added.deadLetterAlarm)]!;

    expect(queue.Properties.VisibilityTimeout).toBe(auditTrailQueue.visibilityTimeoutSeconds);
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalIdOf(added.deadLetterQueue), 'Arn'] },
      maxReceiveCount: auditTrailQueue.maxReceiveCount,
    });
    expect(alarm.Properties.AlarmDescription).toBe(auditTrailQueue.deadLetterAlarmDescription);
  });

  it('feeds its consumer row\'s function, which gets the queue\'s variable and may consume but not send', () => {
    const consumer = logicalIdOf(stack.triggers.functions.get(auditTrailConsumer.name)!);
    const queue = logicalIdOf(stack.storage.queueNamed(auditTrailQueue.name));
    const mapping = Object.values(resources).find((resource) => resource.Type === 'AWS::Lambda::EventSourceMapping' && resource.Properties.FunctionName.Ref === consumer);
    const variables = resources[consumer]!.Properties.Environment.Variables as Record<string, unknown>;

    expect(mapping?.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] }, BatchSize: auditTrailConsumer.batchSize, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    expect(variables[auditTrailQueue.environmentVariable]).toEqual({ Ref: queue });
    expect(variables).not.toHaveProperty('PAPERFLOW_DELIVERY_QUEUE_URL');
    expect(variables).not.toHaveProperty('PAPERFLOW_BUCKET_NAME');
    expect(actionsOn(consumer, queue)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
    expect(actionsOn(consumer, queue)).not.toContain('sqs:SendMessage');
  });

  it('is known to no other function', () => {
    const queue = logicalIdOf(stack.storage.queueNamed(auditTrailQueue.name));
    const others = [...stack.triggers.functions.entries(), ...stack.publicApi.routeFunctions.entries()].filter(([name]) => name !== auditTrailConsumer.name);

    for (const [name, fn] of others) {
      const logicalId = logicalIdOf(fn);
      expect(resources[logicalId]!.Properties.Environment.Variables, name).not.toHaveProperty(auditTrailQueue.environmentVariable);
      expect(actionsOn(logicalId, queue), name).toEqual([]);
    }
  });

  it('fails the synth when a row names a queue the resource table lacks', () => {
    expect(() => new PaperflowStack(apps.app({ 'aws:cdk:bundling-stacks': [] }), 'MissingQueue', { triggers: triggersWithAddedConsumer })).toThrow(/auditTrail/);
  });
});
