import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { StateMachineTaskTrigger } from '../platform/trigger-table.ts';
import { createLocalInvoker, lambdaContext } from './local-invoker.ts';

/** A state machine to serve: its ASL file and its task rows, one per `${Placeholder}` Resource. */
export interface LocalStateMachineDefinition {
  name: string;
  definitionFile: string;
  tasks: readonly Pick<StateMachineTaskTrigger, 'placeholder' | 'handler' | 'timeoutSeconds'>[];
}

export interface LocalStepFunctionsOptions {
  projectRoot: string;
  stateMachines: LocalStateMachineDefinition[];
  /** Compresses every Retry interval (DESIGN.md, Time in tests); undefined keeps the ASL's backoff. */
  retryIntervalMs?: number;
  region?: string;
}

export interface RunningLocalStepFunctions {
  endpoint: string;
  /** ARN of each served state machine, by name. */
  stateMachineArns: Record<string, string>;
  /** Resolves once no execution is running (tests and shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

interface LocalExecution {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startDate: Date;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  finished: Promise<void>;
  abort: () => void;
}

interface ServedStateMachine {
  arn: string;
  machine: StateMachine;
  taskHandlers: Record<string, (input: unknown) => Promise<unknown>>;
  retryOverrides: Record<string, number>;
}

class ServiceError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const accountId = '000000000000';
// SFN's own limits on execution names: 1-80 characters, no whitespace, brackets, wildcards or controls.
const executionNamePattern = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;

/**
 * A small Step Functions endpoint for the embedded stack, speaking the service's JSON protocol
 * (awsJson1_0: StartExecution, DescribeExecution, ListExecutions), so handlers use the real
 * `@aws-sdk/client-sfn` against it. Executions run the real ASL files with aws-local-stepfunctions;
 * each Task's Lambda is the handler module its placeholder maps to, invoked in this process.
 */
export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<RunningLocalStepFunctions> {
  const region = options.region ?? 'us-east-1';
  const machines = new Map<string, ServedStateMachine>();
  const stateMachineArns: Record<string, string> = {};
  for (const definition of options.stateMachines) {
    const served = await serveStateMachine(definition, options, region);
    machines.set(served.arn, served);
    stateMachineArns[definition.name] = served.arn;
  }
  const executions = new Map<string, LocalExecution>();

  const startExecution = (request: { stateMachineArn?: string; name?: string; input?: string }) => {
    const served = machines.get(request.stateMachineArn ?? '');
    if (!served) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
    const name = request.name ?? crypto.randomUUID();
    if (!executionNamePattern.test(name)) throw new ServiceError('InvalidName', `Invalid Name: '${name}'`);
    const input = request.input ?? '{}';
    let parsedInput: unknown;
    try {
      parsedInput = JSON.parse(input);
    } catch {
      throw new ServiceError('InvalidExecutionInput', 'Invalid execution input: not JSON.');
    }
    const executionArn = `arn:aws:states:${region}:${accountId}:execution:${served.arn.split(':').at(-1)}:${name}`;
    const existing = executions.get(executionArn);
    if (existing) {
      // As AWS: the same name with the same input while running answers the same execution.
      if (existing.status === 'RUNNING' && existing.input === input) return { executionArn, startDate: epochSeconds(existing.startDate) };
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const run = served.machine.run(parsedInput as never, {
      overrides: { taskResourceLocalHandlers: served.taskHandlers as never, retryIntervalOverrides: served.retryOverrides },
      context: { Execution: { Id: executionArn, Name: name, Input: parsedInput, StartTime: new Date().toISOString() } } as never,
    });
    const execution: LocalExecution = {
      executionArn,
      stateMachineArn: served.arn,
      name,
      input,
      status: 'RUNNING',
      startDate: new Date(),
      abort: run.abort,
      finished: Promise.resolve(),
    };
    execution.finished = run.result.then(
      (output) => {
        execution.status = 'SUCCEEDED';
        execution.output = JSON.stringify(output ?? null);
      },
      (error: Error) => {
        const cause = (error as { cause?: { name?: string; message?: string } }).cause;
        execution.status = error.name === 'ExecutionAbortedError' ? 'ABORTED' : error.name === 'ExecutionTimeoutError' ? 'TIMED_OUT' : 'FAILED';
        execution.error = cause?.name ?? error.name;
        execution.cause = cause?.message ?? error.message;
        console.error(JSON.stringify({ level: 'error', execution: name, status: execution.status, error: execution.error, cause: execution.cause }));
      },
    ).finally(() => {
      execution.stopDate = new Date();
    });
    executions.set(executionArn, execution);
    return { executionArn, startDate: epochSeconds(execution.startDate) };
  };

  // What ListExecutions returns per execution; DescribeExecution adds input, output and error.
  const executionSummary = (execution: LocalExecution) => ({
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: epochSeconds(execution.startDate),
    ...(execution.stopDate ? { stopDate: epochSeconds(execution.stopDate) } : {}),
  });

  const describeExecution = (request: { executionArn?: string }) => {
    const execution = executions.get(request.executionArn ?? '');
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${request.executionArn}'`);
    return {
      ...executionSummary(execution),
      input: execution.input,
      ...(execution.output !== undefined ? { output: execution.output } : {}),
      ...(execution.error ? { error: execution.error, cause: execution.cause } : {}),
    };
  };

  const listExecutions = (request: { stateMachineArn?: string; statusFilter?: ExecutionStatus }) => {
    if (!machines.has(request.stateMachineArn ?? '')) throw new ServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${request.stateMachineArn}'`);
    return {
      executions: [...executions.values()]
        .filter((execution) => execution.stateMachineArn === request.stateMachineArn && (!request.statusFilter || execution.status === request.statusFilter))
        .map(executionSummary),
    };
  };

  const operations: Record<string, (request: never) => unknown> = {
    StartExecution: startExecution,
    DescribeExecution: describeExecution,
    ListExecutions: listExecutions,
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const serviceError = error instanceof ServiceError ? error : new ServiceError('InternalFailure', 'Internal failure.', 500);
      if (!(error instanceof ServiceError)) console.error(error);
      reply(response, serviceError.status, { __type: serviceError.type, message: serviceError.message });
    });
  });
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = operations[target.replace(/^AWSStepFunctions\./, '')];
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (!target.startsWith('AWSStepFunctions.') || !operation) throw new ServiceError('UnknownOperationException', `Operation ${target} is not served locally.`);
    const body = chunks.length > 0 ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as never) : ({} as never);
    reply(response, 200, operation(body));
  };
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolvePromise());
  });

  const idle = async () => {
    for (;;) {
      const running = [...executions.values()].filter((execution) => execution.status === 'RUNNING');
      if (running.length === 0) return;
      await Promise.all(running.map((execution) => execution.finished));
    }
  };

  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stateMachineArns,
    idle,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
      for (const execution of executions.values()) if (execution.status === 'RUNNING') execution.abort();
      await Promise.allSettled([...executions.values()].map((execution) => execution.finished));
    },
  };
}

async function serveStateMachine(definition: LocalStateMachineDefinition, options: LocalStepFunctionsOptions, region: string): Promise<ServedStateMachine> {
  const text = await readFile(resolve(options.projectRoot, definition.definitionFile), 'utf8');
  const localFunctionArn = (placeholder: string) => `arn:aws:lambda:${region}:${accountId}:function:paperflow-local-${placeholder.replace(/FunctionArn$/, '')}`;
  // The same substitution CDK's definitionSubstitutions performs, with local function ARNs.
  const taskByPlaceholder = new Map(definition.tasks.map((task) => [task.placeholder, task]));
  const substituted = text.replace(/\$\{(\w+)\}/g, (whole, placeholder: string) => {
    if (!taskByPlaceholder.has(placeholder)) throw new Error(`${definition.definitionFile}: no handler for \${${placeholder}}.`);
    return localFunctionArn(placeholder);
  });
  const asl = JSON.parse(substituted) as StateMachineDefinition & { States: Record<string, { Type: string; Resource?: string; Retry?: unknown[] }> };
  const taskByArn = new Map(definition.tasks.map((task) => [localFunctionArn(task.placeholder), task]));
  const invoker = createLocalInvoker(options.projectRoot);
  const taskHandlers: Record<string, (input: unknown) => Promise<unknown>> = {};
  const retryOverrides: Record<string, number> = {};
  for (const [stateName, state] of Object.entries(asl.States)) {
    if (state.Retry && options.retryIntervalMs !== undefined) retryOverrides[stateName] = options.retryIntervalMs;
    if (state.Type !== 'Task' || !state.Resource) continue;
    const task = taskByArn.get(state.Resource)!;
    const invoked = { functionArn: state.Resource, ...(task.timeoutSeconds ? { timeoutMilliseconds: task.timeoutSeconds * 1000 } : {}) };
    taskHandlers[stateName] = async (input) => (await invoker.invoke(task.handler, input, lambdaContext(crypto.randomUUID(), invoked))) ?? null;
  }
  return {
    arn: `arn:aws:states:${region}:${accountId}:stateMachine:paperflow-local-${definition.name}`,
    machine: new StateMachine(asl, { validationOptions: { checkPaths: true, checkArn: true } }),
    taskHandlers,
    retryOverrides,
  };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': crypto.randomUUID() });
  response.end(JSON.stringify(body));
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}
