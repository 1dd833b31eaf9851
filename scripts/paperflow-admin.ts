import { connectToResources, runAdminCommand, wantsHelp } from '../src/admin/admin-cli.ts';

const output = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };
const argv = process.argv.slice(2);
process.exitCode = wantsHelp(argv) || (await connectToResources(output)) ? await runAdminCommand(argv, output) : 1;
