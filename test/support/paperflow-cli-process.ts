import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

// `paperflow` as an API user runs it: a separate process configured only by its environment, talking
// to the stack over HTTP. Nothing of the test process (its AWS variables, its config) leaks into it.

export interface CliConnection {
  apiUrl: string;
  apiKey: string;
}

function cliEnvironment(connection: CliConnection, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    // A configuration folder that does not exist: a profile file of the machine never answers for the test.
    XDG_CONFIG_HOME: '/nonexistent/paperflow-cli-test',
    PAPERFLOW_API_URL: connection.apiUrl,
    PAPERFLOW_API_KEY: connection.apiKey,
    ...extra,
  };
}

/** Runs `paperflow …` to its end; rejects (with code, stdout and stderr) when it exits non-zero. */
export function paperflowCliFor(connection: () => CliConnection, extra: Record<string, string> = {}) {
  return (...args: string[]) => run('node_modules/.bin/node', ['bin/paperflow.mjs', ...args], { env: cliEnvironment(connection(), extra) });
}

export interface RunningCliProcess {
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern` (bounded by `timeoutMs`). */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` and resolves with the exit code once the process has ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A long-running `paperflow …` (listen), its output collected as it comes. */
export function startPaperflowProcess(connection: CliConnection, args: string[]): RunningCliProcess {
  const child = spawn('node_modules/.bin/node', ['bin/paperflow.mjs', ...args], { env: cliEnvironment(connection, {}), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async waitForLine(pattern, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = stdout.split('\n').find((candidate) => pattern.test(candidate));
        if (line !== undefined) return line;
        if (child.exitCode !== null) throw new Error(`paperflow ${args.join(' ')} exited ${child.exitCode} before printing ${pattern}:\n${stdout}\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`paperflow ${args.join(' ')} printed no line matching ${pattern} in ${timeoutMs} ms:\n${stdout}\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
