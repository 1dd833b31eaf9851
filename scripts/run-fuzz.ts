import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

// `npm run fuzz [-- <runs per operation> [<seed>]]`: the API fuzz of test/fuzz with many runs and a
// drawn seed, printed first so that a failure can be replayed with `npm run fuzz -- <runs> <seed>`
// (or PAPERFLOW_FUZZ_RUNS / PAPERFLOW_FUZZ_SEED).
const runs = process.argv[2] ?? process.env.PAPERFLOW_FUZZ_RUNS ?? '300';
const seed = process.argv[3] ?? process.env.PAPERFLOW_FUZZ_SEED ?? String(randomInt(1, 2 ** 31 - 1));
console.log(`API fuzz: ${runs} runs per operation, seed ${seed} (replay: npm run fuzz -- ${runs} ${seed})`);
const result = spawnSync('npx', ['vitest', 'run', '--project', 'fuzz'], {
  stdio: 'inherit',
  env: { ...process.env, PAPERFLOW_FUZZ_RUNS: runs, PAPERFLOW_FUZZ_SEED: seed },
});
process.exit(result.status ?? 1);
