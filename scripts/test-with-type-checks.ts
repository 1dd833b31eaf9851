import { spawn, type ChildProcess } from 'node:child_process';

// `npm test`: the two type checks (`tsc --noEmit`, `tsc -p src/console`) and `vitest run <arguments>`
// side by side, failing if any of the three fails. tsc uses one core; run before vitest, as they were,
// they left the other core idle for half a minute on a 2-core machine. They run at the tests' priority:
// at a lower one a busy machine starved them, and they ended minutes after the tests. Their output is
// printed after vitest's, each under its command, where it is not lost among the test files' lines.

interface Finished {
  command: string;
  code: number;
  output: string;
}

const typeChecks = [
  ['tsc', '--noEmit'],
  ['tsc', '-p', 'src/console'],
];

function run(command: string[], options: { collectOutput: boolean }): Promise<Finished> {
  const [program, ...args] = command;
  // npm runs this with node_modules/.bin on the PATH: the project's tsc and vitest.
  const child: ChildProcess = spawn(program!, args, { stdio: options.collectOutput ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ command: command.join(' '), code: 1, output: String(error) }));
    child.on('close', (code) => resolve({ command: command.join(' '), code: code ?? 1, output }));
  });
}

const checks = typeChecks.map((command) => run(command, { collectOutput: true }));
const tests = await run(['vitest', 'run', ...process.argv.slice(2)], { collectOutput: false });
const checked = await Promise.all(checks);

for (const check of checked) {
  const verdict = check.code === 0 ? 'passed' : `failed (exit ${check.code})`;
  console.log(`\n${check.command}: ${verdict}${check.output.trim() ? `\n${check.output.trimEnd()}` : ''}`);
}
const failed = [...checked, tests].filter((finished) => finished.code !== 0);
if (failed.length > 0) console.error(`\nnpm test failed: ${failed.map((finished) => finished.command).join(', ')}`);
process.exitCode = failed.length > 0 ? 1 : 0;
