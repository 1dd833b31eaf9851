import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import type { StateMachineTaskTrigger } from '../platform/trigger-table.ts';
import { logger, withLogContext } from '../infrastructure/logger.ts';
import { createLocalInvoker, lambdaContext, type LocalInvoker } from './local-invoker.ts';
import { ExecutionJournal } from './execution-journal.ts';
import { listenPreferring } from './kept-ports.ts';

/** A state machine to serve: its ASL file and its task rows, one per `${Placeholder}` Resource. */
export interface LocalStateMachineDefinition {
  name: string;
  definitionFile: string;
  tasks: readonly Pick<StateMachineTaskTrigger, 'placeholder' | 'handler' | 'timeoutSeconds' | 'access'>[];
}

export interface LocalStepFunctionsOptions {
  projectRoot: string;
  stateMachines: LocalStateMachineDefinition[];
  /** How task handlers are run; the stack's, which knows its resource table (a new one over the manifest's otherwise). */
  invoker?: LocalInvoker;
  /** Compresses every Retry interval (DESIGN.md, Time in tests); undefined keeps the ASL's backoff. */
  retryIntervalMs?: number;
  /**
   * Multiplies the duration of every Wait state, for tests (0.001 turns a 60 s Wait into 60 ms);
   * 1, the default, is real time.
   */
  waitTimeScale?: number;
  region?: string;
  /**
   * Where started executions are recorded until they end (docs/local-step-functions.md, Restarts), so
   * that `resumeRecordedExecutions` of a later endpoint runs them again; without it they live in memory only.
   */
  executionJournalDirectory?: string;
  /** The port the last start used (src/local/kept-ports.ts); a free one when undefined or taken. */
  preferredPort?: number;
  /**
   * Whether each definition is checked with aws-local-stepfunctions' validator (JSONPaths and ARNs
   * included) before it is served; the default. About half a second of a core per start: the
   * integration tests, which start a stack per file, leave it out, and unit tests check the files.
   */
  validateDefinitions?: boolean;
}

export interface RunningLocalStepFunctions {
  endpoint: string;
  /** ARN of each served state machine, by name. */
  stateMachineArns: Record<string, string>;
  /** Resolves once no execution is running (tests and shutdown). */
  idle(): Promise<void>;
  /**
   * Runs again, from their input and under their own names, the executions an earlier endpoint on the
   * same journal started and did not end (it was stopped or killed). Call it once the rest of the
   * stack is up: the tasks start at once. Returns how many were resumed.
   */
  resumeRecordedExecutions(): Promise<number>;
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
  stop: () => void;
  /** Settles once the execution is recorded in the journal (at once without one). */
  recorded: Promise<void>;
  /** Stopped by the endpoint's close, not by StopExecution: it stays recorded, for the next start. */
  interrupted?: boolean;
}

/** What a Task's local handler needs of the execution it runs in. */
interface ExecutionRun {
  executionArn: string;
  /** Aborted by StopExecution: a callback task or a scaled Wait then stops waiting. */
  stopped: AbortSignal;
}

type TaskHandler = (input: unknown) => Promise<unknown>;

interface ServedStateMachine {
  arn: string;
  machine: StateMachine;
  taskHandlersFor(run: ExecutionRun): Record<string, TaskHandler>;
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

/**
 * A failure a Task raises, matched by Retry and Catch on its name like a Lambda's error. States.Runtime
 * and a stopped execution are neither retried nor caught, as in AWS; the library reads the two flags.
 */
function stateError(name: string, cause: string, recoverable = true): Error {
  const error = Object.assign(new Error(cause), { isRetryable: recoverable, isCatchable: recoverable });
  error.name = name;
  return error;
}

const executionStopped = () => stateError('States.ExecutionStopped', 'The execution was stopped.', false);

interface WaitingTask {
  executionArn: string;
  succeed: (output: unknown) => void;
  fail: (error: Error) => void;
}

/**
 * Callback tasks (`.waitForTaskToken`) waiting for SendTaskSuccess or SendTaskFailure, by token.
 * Closed tokens are remembered so that a late or repeated call answers TaskTimedOut ("the task
 * associated with the token has already been closed") rather than InvalidToken, as AWS documents.
 */
class CallbackTasks {
  private readonly waiting = new Map<string, WaitingTask>();
  private readonly closed = new Set<string>();

  wait(executionArn: string): { taskToken: string; outcome: Promise<unknown> } {
    const taskToken = randomBytes(48).toString('base64url');
    const outcome = new Promise<unknown>((succeed, fail) => this.waiting.set(taskToken, { executionArn, succeed, fail }));
    return { taskToken, outcome };
  }

  /** The task waiting on this token, or the error AWS answers for any other token. */
  find(taskToken: string | undefined): WaitingTask {
    const task = this.waiting.get(taskToken ?? '');
    if (task) return task;
    if (this.closed.has(taskToken ?? '')) throw new ServiceError('TaskTimedOut', "Task Timed Out: 'Provided task does not exist anymore'");
    throw new ServiceError('InvalidToken', 'Invalid token');
  }

  /** The waiting task, closed: the answer that settles it is the only one it gets. */
  claim(taskToken: string | undefined): WaitingTask {
    const task = this.find(taskToken);
    this.close(taskToken!);
    return task;
  }

  close(taskToken: string): void {
    this.waiting.delete(taskToken);
    this.closed.add(taskToken);
  }

  /** A stopped execution's tasks stop waiting, and their tokens answer TaskTimedOut from then on. */
  stopExecution(executionArn: string): void {
    for (const [taskToken, task] of this.waiting) {
      if (task.executionArn !== executionArn) continue;
      this.close(taskToken);
      task.fail(executionStopped());
    }
  }
}

const accountId = '000000000000';
// SFN's own limits on execution names: 1-80 characters, no whitespace, brackets, wildcards or controls.
const executionNamePattern = /^[^\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]{1,80}$/;

/**
 * A small Step Functions endpoint for the embedded stack, speaking the service's JSON protocol
 * (awsJson1_0: StartExecution, StopExecution, DescribeExecution, ListExecutions and the callback
 * calls SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat), so handlers use the real
 * `@aws-sdk/client-sfn` against it. Executions run the real ASL files with aws-local-stepfunctions;
 * each Task's Lambda is the handler module its placeholder maps to, invoked in this process, as a
 * plain Resource or through `lambda:invoke` and `lambda:invoke.waitForTaskToken`.
 */
export async function startLocalStepFunctions(options: LocalStepFunctionsOptions): Promise<RunningLocalStepFunctions> {
  const region = options.region ?? 'us-east-1';
  const waitTimeScale = options.waitTimeScale ?? 1;
  if (!Number.isFinite(waitTimeScale) || waitTimeScale < 0) throw new Error(`Local Step Functions: the Wait time scale must be a number ≥ 0, not ${options.waitTimeScale}.`);
  const machines = new Map<string, ServedStateMachine>();
  const stateMachineArns: Record<string, string> = {};
  const callbackTasks = new CallbackTasks();
  for (const definition of options.stateMachines) {
    const served = await serveStateMachine(definition, options, region, callbackTasks);
    machines.set(served.arn, served);
    stateMachineArns[definition.name] = served.arn;
  }
  const executions = new Map<string, LocalExecution>();
  const journal = options.executionJournalDirectory ? new ExecutionJournal(options.executionJournalDirectory) : undefined;

  const startExecution = async (request: { stateMachineArn?: string; name?: string; input?: string }) => {
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
      if (existing.status === 'RUNNING' && existing.input === input) {
        await existing.recorded;
        return { executionArn, startDate: epochSeconds(existing.startDate) };
      }
      throw new ServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`);
    }
    const execution = runExecution(served, { executionArn, name, input, parsedInput, startDate: new Date() });
    // Answered only once recorded: a started execution the caller was told about survives a kill.
    execution.recorded = journal?.record({ executionArn, stateMachineArn: served.arn, name, input, startDate: execution.startDate.toISOString() }) ?? Promise.resolve();
    await execution.recorded;
    return { executionArn, startDate: epochSeconds(execution.startDate) };
  };

  const runExecution = (
    served: ServedStateMachine,
    { executionArn, name, input, parsedInput, startDate }: { executionArn: string; name: string; input: string; parsedInput: unknown; startDate: Date },
  ): LocalExecution => {
    const stopping = new AbortController();
    // The tasks' lines carry the execution, as a deployed task's do from its input (src/platform/state-machine-task.ts).
    const run = withLogContext({ executionArn }, () => served.machine.run(parsedInput as never, {
      overrides: {
        taskResourceLocalHandlers: served.taskHandlersFor({ executionArn, stopped: stopping.signal }) as never,
        retryIntervalOverrides: served.retryOverrides,
      },
      context: { Execution: { Id: executionArn, Name: name, Input: parsedInput, StartTime: startDate.toISOString() }, Task: { Token: taskTokenPlaceholder } } as never,
    }));
    const execution: LocalExecution = {
      executionArn,
      stateMachineArn: served.arn,
      name,
      input,
      status: 'RUNNING',
      startDate,
      recorded: Promise.resolve(),
      stop: () => {
        stopping.abort();
        run.abort();
        callbackTasks.stopExecution(executionArn);
      },
      finished: Promise.resolve(),
    };
    execution.finished = run.result.then(
      (output) => {
        if (execution.status !== 'RUNNING') return;
        execution.status = 'SUCCEEDED';
        execution.output = JSON.stringify(output ?? null);
      },
      (error: Error) => {
        // StopExecution has already recorded ABORTED with the caller's error and cause.
        if (execution.status !== 'RUNNING') return;
        const cause = (error as { cause?: { name?: string; message?: string } }).cause;
        execution.status = error.name === 'ExecutionAbortedError' ? 'ABORTED' : error.name === 'ExecutionTimeoutError' ? 'TIMED_OUT' : 'FAILED';
        execution.error = cause?.name ?? error.name;
        execution.cause = cause?.message ?? error.message;
        if (!execution.interrupted) logger.error('execution did not succeed', { executionArn, status: execution.status, error: execution.error, cause: execution.cause });
      },
    ).finally(async () => {
      execution.stopDate ??= new Date();
      if (!journal || execution.interrupted) return;
      // After its record is written, so that a quick execution cannot be forgotten before it is recorded.
      await execution.recorded.catch(() => undefined);
      await journal.forget(executionArn).catch((error: unknown) => logger.warn('local Step Functions: an ended execution could not be unrecorded', { executionArn, error }));
    });
    executions.set(executionArn, execution);
    return execution;
  };

  const resumeRecordedExecutions = async () => {
    if (!journal) return 0;
    let resumed = 0;
    for (const recorded of await journal.unfinished()) {
      const served = machines.get(recorded.stateMachineArn);
      if (executions.has(recorded.executionArn)) continue;
      let parsedInput: unknown;
      try {
        parsedInput = JSON.parse(recorded.input);
      } catch {
        parsedInput = undefined;
      }
      if (!served || parsedInput === undefined) {
        // A state machine this version no longer serves: the sweepers end what it left in flight.
        logger.warn('local Step Functions: a recorded execution cannot be resumed; dropped', { executionArn: recorded.executionArn });
        await journal.drop(recorded);
        continue;
      }
      const { executionArn, name, input } = recorded;
      runExecution(served, { executionArn, name, input, parsedInput, startDate: new Date(recorded.startDate) });
      logger.info('local Step Functions: execution resumed after a restart', { executionArn: recorded.executionArn, startDate: recorded.startDate });
      resumed += 1;
    }
    return resumed;
  };

  const findExecution = (executionArn: string | undefined) => {
    const execution = executions.get(executionArn ?? '');
    if (!execution) throw new ServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return execution;
  };

  // AWS documents no error for stopping an execution that is no longer running: the call succeeds
  // and the execution keeps the status, error and cause it ended with.
  const stopExecution = (request: { executionArn?: string; error?: string; cause?: string }) => {
    const execution = findExecution(request.executionArn);
    if (execution.status === 'RUNNING') {
      execution.status = 'ABORTED';
      execution.stopDate = new Date();
      execution.error = request.error;
      execution.cause = request.cause;
      execution.stop();
    }
    return { stopDate: epochSeconds(execution.stopDate ?? new Date()) };
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
    const execution = findExecution(request.executionArn);
    return {
      ...executionSummary(execution),
      input: execution.input,
      ...(execution.output !== undefined ? { output: execution.output } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
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

  const sendTaskSuccess = (request: { taskToken?: string; output?: string }) => {
    let output: unknown;
    try {
      output = JSON.parse(request.output ?? '');
    } catch {
      throw new ServiceError('InvalidOutput', 'Invalid output: not JSON.');
    }
    callbackTasks.claim(request.taskToken).succeed(output);
    return {};
  };

  const sendTaskFailure = (request: { taskToken?: string; error?: string; cause?: string }) => {
    callbackTasks.claim(request.taskToken).fail(stateError(request.error ?? '', request.cause ?? ''));
    return {};
  };

  // Accepted for a waiting task; HeartbeatSeconds is not enforced locally.
  const sendTaskHeartbeat = (request: { taskToken?: string }) => {
    callbackTasks.find(request.taskToken);
    return {};
  };

  const operations: Record<string, (request: never) => unknown> = {
    StartExecution: startExecution,
    StopExecution: stopExecution,
    DescribeExecution: describeExecution,
    ListExecutions: listExecutions,
    SendTaskSuccess: sendTaskSuccess,
    SendTaskFailure: sendTaskFailure,
    SendTaskHeartbeat: sendTaskHeartbeat,
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const serviceError = error instanceof ServiceError ? error : new ServiceError('InternalFailure', 'Internal failure.', 500);
      if (!(error instanceof ServiceError)) logger.error('local Step Functions request failed', { error });
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
    reply(response, 200, await operation(body));
  };
  const port = await listenPreferring(server, options.preferredPort);

  const idle = async () => {
    for (;;) {
      const running = [...executions.values()].filter((execution) => execution.status === 'RUNNING');
      if (running.length === 0) return;
      await Promise.all(running.map((execution) => execution.finished));
    }
  };

  return {
    endpoint: `http://127.0.0.1:${port}`,
    stateMachineArns,
    idle,
    resumeRecordedExecutions,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolvePromise) => server.close(() => resolvePromise()));
      // Stopped without waiting for their tasks, and left recorded: the next start runs them again.
      for (const execution of executions.values()) {
        if (execution.status !== 'RUNNING') continue;
        execution.interrupted = true;
        execution.stop();
      }
      await Promise.allSettled([...executions.values()].map((execution) => execution.finished));
    },
  };
}

/** An ASL state, loosely: the fields the local endpoint reads or rewrites. */
interface AslState {
  Type: string;
  Resource?: string;
  Retry?: unknown[];
  TimeoutSeconds?: number;
  TimeoutSecondsPath?: string;
  Seconds?: number;
  SecondsPath?: string;
  Timestamp?: string;
  TimestampPath?: string;
  Branches?: AslMachine[];
  Iterator?: AslMachine;
  ItemProcessor?: AslMachine;
  [field: string]: unknown;
}

interface AslMachine {
  StartAt: string;
  States: Record<string, AslState>;
}

/** Every state with the States object holding it, also those inside Parallel branches and Map processors. */
function* everyState(machine: AslMachine): Generator<[name: string, state: AslState, holder: Record<string, AslState>]> {
  for (const [name, state] of Object.entries(machine.States)) {
    yield [name, state, machine.States];
    for (const nested of [...(state.Branches ?? []), state.Iterator, state.ItemProcessor]) if (nested) yield* everyState(nested);
  }
}

const lambdaInvoke = 'arn:aws:states:::lambda:invoke';
const lambdaInvokeWithTaskToken = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
// The library fills `$$.Task.Token` from the run's fixed context object, not per state entry, so the
// context carries this placeholder and the callback task's handler swaps in a fresh token per attempt.
const taskTokenPlaceholder = 'paperflow-local:task-token';
// Resource of the Task a scaled Wait becomes (see scaledWaitTask); never in an ASL file.
const scaledWaitResource = 'arn:aws:states:::paperflow-local:scaledWait';
// setTimeout's longest delay (about 24.8 days): the library times a Task with it, so it is the
// local stand-in for AWS's unbounded default Task timeout.
const longestTimerMilliseconds = 2_147_483_647;
const longestTaskTimeoutSeconds = Math.floor(longestTimerMilliseconds / 1000);

async function serveStateMachine(
  definition: LocalStateMachineDefinition,
  options: LocalStepFunctionsOptions,
  region: string,
  callbackTasks: CallbackTasks,
): Promise<ServedStateMachine> {
  const text = await readFile(resolve(options.projectRoot, definition.definitionFile), 'utf8');
  const localFunctionArn = (placeholder: string) => `arn:aws:lambda:${region}:${accountId}:function:paperflow-local-${placeholder.replace(/FunctionArn$/, '')}`;
  // The same substitution CDK's definitionSubstitutions performs, with local function ARNs.
  const taskByPlaceholder = new Map(definition.tasks.map((task) => [task.placeholder, task]));
  const substituted = text.replace(/\$\{(\w+)\}/g, (whole, placeholder: string) => {
    if (!taskByPlaceholder.has(placeholder)) throw new Error(`${definition.definitionFile}: no handler for \${${placeholder}}.`);
    return localFunctionArn(placeholder);
  });
  const asl = JSON.parse(substituted) as AslMachine;
  const taskByArn = new Map(definition.tasks.map((task) => [localFunctionArn(task.placeholder), task]));
  const invoker = options.invoker ?? createLocalInvoker(options.projectRoot);
  const invokeFunction = async (functionArn: string, payload: unknown) => {
    const task = taskByArn.get(functionArn);
    if (!task) throw stateError('Lambda.ResourceNotFoundException', `Function not found: ${functionArn}`);
    const invoked = { functionArn, ...(task.timeoutSeconds ? { timeoutMilliseconds: task.timeoutSeconds * 1000 } : {}) };
    return (await invoker.invoke(task, payload, lambdaContext(crypto.randomUUID(), invoked))) ?? null;
  };

  const waitTimeScale = options.waitTimeScale ?? 1;
  const handlerFactories: Record<string, (run: ExecutionRun) => TaskHandler> = {};
  const retryOverrides: Record<string, number> = {};
  for (const [stateName, state, holder] of everyState(asl)) {
    if (state.Retry && options.retryIntervalMs !== undefined) retryOverrides[stateName] = options.retryIntervalMs;
    if (state.Type === 'Wait' && waitTimeScale !== 1) {
      holder[stateName] = scaledWaitTask(state);
      handlerFactories[stateName] = (run) => (input) => scaledWait(input as ScaledWaitInput, waitTimeScale, run.stopped);
      continue;
    }
    if (state.Type !== 'Task' || !state.Resource) continue;
    const resource = state.Resource;
    if (resource === lambdaInvoke) {
      handlerFactories[stateName] = () => async (input) => {
        const { FunctionName, Payload } = input as { FunctionName: string; Payload?: unknown };
        return { ExecutedVersion: '$LATEST', Payload: await invokeFunction(FunctionName, Payload ?? {}), StatusCode: 200 };
      };
    } else if (resource === lambdaInvokeWithTaskToken) {
      // AWS waits for the callback with no limit unless the state sets one; the library's default is 60 s.
      if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) state.TimeoutSeconds = longestTaskTimeoutSeconds;
      handlerFactories[stateName] = (run) => async (input) => {
        if (run.stopped.aborted) throw executionStopped();
        const { taskToken, outcome } = callbackTasks.wait(run.executionArn);
        const { FunctionName, Payload } = withTaskToken(input, taskToken) as { FunctionName: string; Payload?: unknown };
        try {
          await invokeFunction(FunctionName, Payload ?? {});
        } catch (error) {
          callbackTasks.close(taskToken);
          throw error;
        }
        return outcome;
      };
    } else if (taskByArn.has(resource)) {
      handlerFactories[stateName] = () => (input) => invokeFunction(resource, input);
    } else {
      throw new Error(`${definition.definitionFile}: state ${stateName} uses ${resource}, which the local Step Functions does not serve.`);
    }
  }
  return {
    arn: `arn:aws:states:${region}:${accountId}:stateMachine:paperflow-local-${definition.name}`,
    machine: new StateMachine(asl as unknown as StateMachineDefinition, {
      validationOptions: options.validateDefinitions === false ? { noValidate: true } : { checkPaths: true, checkArn: true },
    }),
    taskHandlersFor: (run) => Object.fromEntries(Object.entries(handlerFactories).map(([stateName, handlerFor]) => [stateName, handlerFor(run)])),
    retryOverrides,
  };
}

/** The callback task's input with the context's token placeholder replaced by this attempt's token. */
function withTaskToken(value: unknown, taskToken: string): unknown {
  if (value === taskTokenPlaceholder) return taskToken;
  if (Array.isArray(value)) return value.map((item) => withTaskToken(item, taskToken));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withTaskToken(item, taskToken)]));
  return value;
}

interface ScaledWaitInput {
  input: unknown;
  seconds?: unknown;
  timestamp?: unknown;
}

/**
 * A Wait state as a Task whose handler sleeps the scaled duration. The library's own Wait can only be
 * overridden by a fixed number of milliseconds per state, which cannot follow SecondsPath or
 * TimestampPath; as a Task, its Parameters resolve those paths (InputPath and OutputPath still
 * apply) and pass the state's input through unchanged, as a Wait does.
 */
function scaledWaitTask(wait: AslState): AslState {
  const { Type, Seconds, SecondsPath, Timestamp, TimestampPath, ...transitionAndPaths } = wait;
  return {
    ...transitionAndPaths,
    Type: 'Task',
    Resource: scaledWaitResource,
    TimeoutSeconds: longestTaskTimeoutSeconds,
    Parameters: {
      'input.$': '$',
      ...(Seconds !== undefined ? { seconds: Seconds } : {}),
      ...(SecondsPath !== undefined ? { 'seconds.$': SecondsPath } : {}),
      ...(Timestamp !== undefined ? { timestamp: Timestamp } : {}),
      ...(TimestampPath !== undefined ? { 'timestamp.$': TimestampPath } : {}),
    },
  };
}

async function scaledWait({ input, seconds, timestamp }: ScaledWaitInput, scale: number, stopped: AbortSignal): Promise<unknown> {
  let milliseconds: number;
  if (seconds !== undefined) {
    if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 0) throw stateError('States.Runtime', `Wait seconds must be a non-negative integer: ${JSON.stringify(seconds)}`, false);
    milliseconds = seconds * 1000;
  } else {
    const until = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
    if (Number.isNaN(until)) throw stateError('States.Runtime', `Wait timestamp is not a timestamp: ${JSON.stringify(timestamp)}`, false);
    milliseconds = until - Date.now();
  }
  const delay = Math.min(longestTimerMilliseconds - 1000, Math.max(0, milliseconds * scale));
  await new Promise<void>((resolvePromise, reject) => {
    if (stopped.aborted) return reject(executionStopped());
    const timer = setTimeout(() => {
      stopped.removeEventListener('abort', onStop);
      resolvePromise();
    }, delay);
    const onStop = () => {
      clearTimeout(timer);
      reject(executionStopped());
    };
    stopped.addEventListener('abort', onStop, { once: true });
  });
  return input;
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': crypto.randomUUID() });
  response.end(JSON.stringify(body));
}

function epochSeconds(date: Date): number {
  return date.getTime() / 1000;
}
