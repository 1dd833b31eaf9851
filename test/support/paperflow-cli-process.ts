import { execFile, spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
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

/**
 * How the process is started: the bin run by node, or `npx paperflow` as the README shows it (npm
 * runs the project's bin through `sh -c`; offline, so nothing is fetched).
 */
export type CliLauncher = 'node' | 'npx';

/** A long-running `paperflow …` (listen), its output collected as it comes. */
export function startPaperflowProcess(connection: CliConnection, args: string[], launcher: CliLauncher = 'node'): RunningCliProcess {
  const [command, ...launcherArgs] = launcher === 'node' ? ['node_modules/.bin/node', 'bin/paperflow.mjs'] : ['npx', '--offline', 'paperflow'];
  const child = spawn(command!, [...launcherArgs, ...args], { env: cliEnvironment(connection, {}), stdio: ['ignore', 'pipe', 'pipe'] });
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

/** The ids of this machine's processes whose command line contains `text` (Linux: read from /proc). */
export async function processesWhoseCommandLineHas(text: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // A process may end between the listing and the read.
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (commandLine.split('\0').join(' ').includes(text)) pids.push(Number(entry));
  }
  return pids;
}
