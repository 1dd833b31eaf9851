import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

// `npm run bench`: every benchmark in bench/ in its own process (so memory figures are its own),
// one after another so they do not compete for the two cores. `npm run bench -- gateway` filters.
const benchDir = resolve(import.meta.dirname);
const filter = process.argv[2];
const benchmarks = readdirSync(benchDir)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts')
  .filter((name) => !filter || name.includes(filter))
  .sort();

let failed = 0;
for (const benchmark of benchmarks) {
  console.log(`\n=== ${benchmark}`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, benchmark)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;
