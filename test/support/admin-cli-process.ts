import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';

const run = promisify(execFile);

/** paperflow-admin as an operator runs it: a separate process finding the local stack in `dataDir`. */
export function adminCliFor(dataDir: () => string) {
  return (...args: string[]) =>
    run('node_modules/.bin/node', ['bin/paperflow-admin.mjs', ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PAPERFLOW_DATA_DIR: dataDir() },
    });
}

export type FailedCommand = { code: number; stdout: string; stderr: string };

/** The failure of a command expected to exit non-zero; the test fails if it succeeded. */
export const failureOf = (running: Promise<unknown>) =>
  running.then(
    () => expect.fail('the command succeeded'),
    (error: FailedCommand) => error,
  );
