import type { S3Event } from 'aws-lambda';

// What the rest of the stack knows of the emulators: where they listen, how they report stored
// objects, their fixed credentials. Apart from emulators.ts so that the process starting them on a
// thread of their own (emulators-on-own-thread.ts) never loads dynalite, s3rver and fauxqs itself:
// importing them took 1-2 s of a core in every stack boot, for code only the thread runs.

export interface EmulatorEndpoints {
  dynamodb: string;
  s3: string;
  sqs: string;
}

export interface EmulatorHooks {
  /** s3rver emits an S3 notification event for every object it stores; S3 would invoke a Lambda with it. */
  onObjectCreated?: (event: S3Event) => void;
}

export interface RunningEmulators {
  endpoints: EmulatorEndpoints;
  /** CPU time of the emulators' own thread so far, when they run on one (benchmarks read where the cores went). */
  threadCpuUsage?(): Promise<NodeJS.CpuUsage>;
  stop(): Promise<void>;
}

/** s3rver accepts only these fixed credentials; the other emulators accept any. */
export const s3rverCredentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
