import { runPaperflowCommand } from '../src/cli/paperflow-cli.ts';

// Once the terminal is closed (SIGHUP) or the reader of a pipe is gone, a write fails with EIO or
// EPIPE: nobody is left to tell, and `listen` must still get to delete its subscription.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
  });
}

// `npx paperflow` and `npm run` start this process through `sh -c`, and npm passes a SIGTERM on to that
// shell only, which ends without passing it on: this process went on alone, its parent gone, and
// `listen` never deleted its subscription. Node cannot ask the kernel for a signal when the parent
// ends, so under npm the parent is watched instead (not otherwise: `nohup paperflow listen &` is
// meant to outlive its shell).
const launchedByNpm = process.env.npm_lifecycle_event !== undefined;
const parentCheckIntervalMs = 250;

function whenParentEnds(stop: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) stop();
  }, parentCheckIntervalMs);
  return () => clearInterval(timer);
}

process.exitCode = await runPaperflowCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  environment: process.env,
  onInterrupt(stop) {
    // Ctrl-C, a SIGTERM from a supervisor and a SIGHUP from a closed terminal all let `listen` finish
    // its clean-up (deleting the subscription it created) before exiting.
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const signal of signals) process.once(signal, stop);
    const stopWatchingParent = launchedByNpm ? whenParentEnds(stop) : () => {};
    return () => {
      for (const signal of signals) process.off(signal, stop);
      stopWatchingParent();
    };
  },
});
