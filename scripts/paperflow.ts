import { runPaperflowCommand } from '../src/cli/paperflow-cli.ts';

// Once the terminal is closed (SIGHUP) or the reader of a pipe is gone, a write fails with EIO or
// EPIPE: nobody is left to tell, and `listen` must still get to delete its subscription.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'EIO') throw error;
  });
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
    return () => {
      for (const signal of signals) process.off(signal, stop);
    };
  },
});
