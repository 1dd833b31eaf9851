import { Command, CommanderError } from 'commander';
import packageDescription from '../../package.json' with { type: 'json' };
import { apiErrorLines, ApiError, exitCodes, UsageError } from './cli-errors.ts';
import { CommandContext, type CliIo } from './command-context.ts';
import { addEventCommands, addSubscriptionCommands } from './event-commands.ts';
import { addExtractionCommands } from './extraction-commands.ts';
import { addListenCommand } from './listen-command.ts';
import { addRunCommands } from './run-commands.ts';
import { addTriggerCommand } from './trigger-command.ts';

// `paperflow`, the command line for API users: every command is a call of the public API (spec,
// public-api-v1.md) with the configured URL and key, so it works the same against `npm start` and a
// deployed stack. Exit codes: 0 done, 1 the API (or the network, or a waited-for outcome) said no,
// 2 the command line cannot be run as written.

const configurationHelp = `
Configuration (the first that gives a value wins):
  --profile <name>                   a profile of the configuration file
  PAPERFLOW_API_URL, PAPERFLOW_API_KEY
  the profile PAPERFLOW_PROFILE names, else "default", of $XDG_CONFIG_HOME/paperflow/config.json
  (~/.config/paperflow/config.json):
    {"profiles": {"default": {"apiUrl": "http://127.0.0.1:4010/api/public/v1", "apiKey": "pf_live_…"}}}

Exit codes: 0 done; 1 the API refused the request, could not be reached, or a waited-for extraction
or run did not complete; 2 usage error (a missing argument, a bad option value, no configuration).
Colours only on a terminal, and never with NO_COLOR set.`;

export function paperflowProgram(io: CliIo): Command {
  const program = new Command('paperflow');
  const context = new CommandContext(io, () => program.opts<{ profile?: string }>().profile);
  program
    .description('Paperflow from the command line: extractions, workflow runs, events and webhooks, through the public API.')
    .version(`paperflow ${packageDescription.version}`, '-V, --version', 'print the version of paperflow')
    .option('--profile <name>', 'use this profile of the configuration file')
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    // Set before the commands are added, so that every subcommand inherits it: commander reports
    // usage errors by throwing, and the exit code is decided below.
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', configurationHelp);
  addExtractionCommands(program, context);
  addRunCommands(program, context);
  addEventCommands(program, context);
  addSubscriptionCommands(program, context);
  addListenCommand(program, context);
  addTriggerCommand(program, context);
  return program;
}

/** Runs one command line (without `node` and the script); returns the exit code. Never a stack trace. */
export async function runPaperflowCommand(argv: string[], io: CliIo): Promise<number> {
  const program = paperflowProgram(io);
  const context = new CommandContext(io, () => undefined);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with commander's 0; everything else it reports is a usage error.
      return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    }
    if (error instanceof ApiError) {
      for (const line of apiErrorLines(error)) context.err(`paperflow: ${line}`);
      return exitCodes.failed;
    }
    if (error instanceof UsageError) {
      context.err(`paperflow: ${error.message}`);
      context.err('(add --help for usage)');
      return exitCodes.usage;
    }
    context.err(`paperflow: ${(error as Error).message}`);
    return exitCodes.failed;
  }
}
