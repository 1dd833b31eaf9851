import { connectToResources, runAdminCommand } from '../src/admin/admin-cli.ts';

const output = { out: (line: string) => console.log(line), err: (line: string) => console.error(line) };
const argv = process.argv.slice(2);
const wantsHelp = argv.length === 0 || argv[0] === '--help';
process.exitCode = wantsHelp || (await connectToResources(output)) ? await runAdminCommand(argv, output) : 1;
