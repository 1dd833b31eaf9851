import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { bootstrapApiKey } from './local-stack-harness.ts';

// `npm start` as a process of its own (the command the npm script runs, without npm around it), for
// tests that stop or kill the stack and start it again on the same data folder and port.

/** A fresh process transpiles the whole stack first: on a loaded 2-core machine that can take tens of seconds. */
export const stackStartUpAllowanceMs = 100_000;

export interface LocalStackProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Sends the signal and resolves once the process has exited. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface LocalStackProcessOptions {
  dataDir: string;
  port: number;
  environment?: Record<string, string>;
}

/** Starts `scripts/start-local.ts` and resolves once it printed its ready line; kill() it in afterAll. */
export async function startLocalStackProcess(options: LocalStackProcessOptions): Promise<LocalStackProcess> {
  const child = spawn('node_modules/.bin/node', ['--import', 'tsx', 'scripts/start-local.ts'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_NO_WARNINGS: '1',
      PAPERFLOW_DATA_DIR: options.dataDir,
      PORT: String(options.port),
      PAPERFLOW_BOOTSTRAP_API_KEY: bootstrapApiKey,
      ...options.environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = once(child, 'exit');
  const running: LocalStackProcess = {
    child,
    baseUrl: `http://127.0.0.1:${options.port}/api/public/v1`,
    output: () => ({ stdout, stderr }),
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  const deadline = Date.now() + stackStartUpAllowanceMs;
  while (!stdout.includes('local stack ready')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await running.kill('SIGKILL');
      throw new Error(`The local stack did not start (exit ${child.exitCode}):\n${stdout}\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return running;
}
