import { runPaperflowCommand } from '../src/cli/paperflow-cli.ts';

process.exitCode = await runPaperflowCommand(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  environment: process.env,
  onInterrupt(stop) {
    // Ctrl-C (and a SIGTERM from a supervisor) let `listen` finish its clean-up before exiting.
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
  },
});
