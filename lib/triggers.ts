import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { EventType } from 'aws-cdk-lib/aws-s3';
import { LambdaDestination } from 'aws-cdk-lib/aws-s3-notifications';
import { StateMachine, type IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { StateMachineName } from '../src/platform/resource-access.ts';
import { effectiveAccess, tasksOf, type StateMachineDefinition, type TriggerDefinition } from '../src/platform/trigger-table.ts';
import { PaperflowFunction, repositoryRoot } from './paperflow-function.ts';
import type { PaperflowStack } from './paperflow-stack.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';
import { bindResourceAccess } from './resource-access.ts';
import type { ResourceDefinition } from '../src/platform/resource-table.ts';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';

export interface TriggersProps {
  stateMachines: readonly StateMachineDefinition[];
  triggers: readonly TriggerDefinition[];
  /** The resource table the storage was built from. */
  resources: readonly ResourceDefinition[];
  storage: PaperflowStorage;
}

/**
 * Every non-HTTP entry point, generated from the trigger table (src/manifest/triggers.ts): one
 * function per row with exactly the grants its row names; the state machines from their ASL files,
 * placeholders filled by their task rows; an EventBridge rule per schedule; the bucket notifications;
 * an SQS event source mapping per queue consumer.
 */
export class Triggers extends Construct {
  /** The function of each row, by row name. */
  readonly functions = new Map<string, PaperflowFunction>();
  readonly stateMachines: Partial<Record<StateMachineName, StateMachine>> = {};

  constructor(stack: PaperflowStack, id: string, props: TriggersProps) {
    super(stack, id);
    const names = new Set<string>();
    for (const trigger of props.triggers) {
      if (names.has(trigger.name)) throw new Error(`Two trigger rows are named ${trigger.name}.`);
      names.add(trigger.name);
      this.functions.set(
        trigger.name,
        new PaperflowFunction(this, pascalCase(trigger.name), {
          handlerModule: trigger.handler,
          description: trigger.description,
          ...(trigger.memorySize ? { memorySize: trigger.memorySize } : {}),
          ...(trigger.timeoutSeconds ? { timeout: Duration.seconds(trigger.timeoutSeconds) } : {}),
          ...(trigger.nodeModules ? { nodeModules: trigger.nodeModules } : {}),
          ...(trigger.architecture ? { architecture: trigger.architecture } : {}),
          ...(isInvokedAsynchronously(trigger) ? { asyncInvocationDeadLetterQueue: props.storage.asyncInvocationFailureQueue } : {}),
        }),
      );
    }

    // Machines after their task functions (whose ARNs they embed), grants after the machines (which
    // rows may start, stop or call back).
    const grantable: Partial<Record<StateMachineName, IStateMachine>> = {};
    for (const machine of props.stateMachines) {
      const tasks = tasksOf(machine.name, props.triggers);
      checkPlaceholdersFilled(machine, tasks.map((task) => task.placeholder));
      const taskFunctions = tasks.map((task) => this.functions.get(task.name)!);
      // A machine whose own tasks start its executions or answer its tokens (workflow runs: for_each)
      // cannot hand them its ARN by reference: the machine embeds their ARNs, so CloudFormation would
      // see a cycle. It gets a fixed name, and every grant goes through an ARN built from that name.
      const reachedByOwnTasks = tasks.some((task) => effectiveAccess(task).stateMachines?.[machine.name] !== undefined);
      const stateMachineName = reachedByOwnTasks ? `${stack.stackName}-${pascalCase(machine.name)}` : undefined;
      // The id the extraction machine always had, so a redeploy keeps it and its execution history.
      this.stateMachines[machine.name] = stack.addStateMachineFromDefinitionFile(`${pascalCase(machine.name)}StateMachine`, {
        definitionFile: machine.definitionFile,
        substitutions: Object.fromEntries(tasks.map((task, index) => [task.placeholder, taskFunctions[index]!.functionArn])),
        invokedFunctions: taskFunctions,
        ...(stateMachineName ? { stateMachineName } : {}),
      });
      grantable[machine.name] = stateMachineName
        ? StateMachine.fromStateMachineName(this, `${pascalCase(machine.name)}StateMachineByName`, stateMachineName)
        : this.stateMachines[machine.name];
    }
    const orphanTask = props.triggers.find((trigger) => trigger.kind === 'stateMachineTask' && !this.stateMachines[trigger.stateMachine]);
    if (orphanTask) throw new Error(`Trigger ${orphanTask.name} is a task of a state machine this stack lacks.`);

    for (const trigger of props.triggers) {
      const fn = this.functions.get(trigger.name)!;
      bindResourceAccess(fn, effectiveAccess(trigger), { table: props.resources, storage: props.storage, stateMachines: grantable });
      switch (trigger.kind) {
        case 'stateMachineTask':
          break;
        case 'schedule':
          new Rule(this, `${pascalCase(trigger.name)}Schedule`, {
            description: `Runs ${trigger.name}`,
            schedule: Schedule.rate(Duration.minutes(trigger.everyMinutes)),
            // An invocation EventBridge cannot make (throttled past its retries) is kept, not dropped.
            targets: [new LambdaTarget(fn, { deadLetterQueue: props.storage.asyncInvocationFailureQueue, retryAttempts: 3, maxEventAge: Duration.hours(1) })],
          });
          break;
        case 'bucketNotification':
          props.storage.filesBucket.addEventNotification(EventType.OBJECT_CREATED, new LambdaDestination(fn), { prefix: trigger.keyPrefix });
          break;
        case 'queueConsumer':
          fn.addEventSource(
            new SqsEventSource(props.storage.queueNamed(trigger.queue), {
              batchSize: trigger.batchSize,
              maxBatchingWindow: Duration.seconds(trigger.maximumBatchingWindowSeconds),
              reportBatchItemFailures: trigger.reportBatchItemFailures,
              ...(trigger.maximumConcurrency !== undefined ? { maxConcurrency: trigger.maximumConcurrency } : {}),
            }),
          );
          acknowledgeNagFinding(
            fn,
            'Serverless-LambdaEventSourceMappingDestination',
            'An SQS event source mapping takes no on-failure destination (only stream and Kafka sources do): a message that keeps failing goes to its queue\'s dead-letter queue through the redrive policy, which is alarmed.',
            { applyToChildren: true },
          );
          break;
      }
    }
  }
}

/** EventBridge schedules and S3 notifications invoke asynchronously; the other kinds wait for the answer. */
function isInvokedAsynchronously(trigger: TriggerDefinition): boolean {
  return trigger.kind === 'schedule' || trigger.kind === 'bucketNotification';
}

/** A placeholder left unfilled would only fail at deploy time; a task row the ASL never names is a slip. */
function checkPlaceholdersFilled(machine: StateMachineDefinition, taskPlaceholders: string[]): void {
  const text = readFileSync(path.resolve(repositoryRoot, machine.definitionFile), 'utf8');
  const placeholders = new Set([...text.matchAll(/\$\{(\w+)\}/g)].map((match) => match[1]!));
  for (const placeholder of placeholders) {
    if (!taskPlaceholders.includes(placeholder)) throw new Error(`${machine.definitionFile}: no task row fills \${${placeholder}}.`);
  }
  for (const placeholder of taskPlaceholders) {
    if (!placeholders.has(placeholder)) throw new Error(`${machine.definitionFile} has no \${${placeholder}} for its task row.`);
  }
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
