// Start-up benchmark: whole `dsbench` processes (the built CLI: what `npm run build` makes) for --help, runs,
// ask and search, against `node -e 0`, in paired rounds (each round runs every case once, in a rotating
// order, so load drifts hit all cases alike). ask and search get an endpoint that refuses connections and
// one attempt: the process loads everything the command uses, tries once and exits.
// --baseline FILE adds the same command lines run by another build's main.js (say, an earlier commit's), in the
// same rounds, for a before/after that load drifts do not bend; the baseline's figures go to stdout only.
// Usage: node --import tsx bench/startup/index.ts [--quick] [--baseline path/to/dist/cli/main.js]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { timed } from '../lib/timed.js';
import { buildCli } from '../../scripts/build.js';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 3 : 21;
const LIMIT_S = 0.2;
const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt > 0 ? path.resolve(process.argv[baselineAt + 1] ?? '') : undefined;

async function refusedEndpoint(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-startup-bench-'));
try {
  // Built beside dist/ rather than into it, so the bench measures the current sources without touching dist/.
  const built = fileURLToPath(new URL('../../node_modules/.cache/dsbench-startup-bench', import.meta.url));
  await buildCli(built);
  const main = path.join(built, 'cli/main.js');
  const db = path.join(dir, 'results.db');
  openStore(db).close();
  const endpoint = await refusedEndpoint();
  const commandLines = (cli: string, suffix: string): Array<[string, string[]]> => [
    [`dsbench --help${suffix}`, [cli, '--help']],
    [`dsbench runs${suffix}`, [cli, 'runs', '--db', db]],
    [`dsbench ask${suffix}`, [cli, 'ask', 'q', '--endpoint', endpoint, '--max-attempts', '1']],
    [`dsbench search${suffix}`, [cli, 'search', 'q', '--endpoint', endpoint, '--max-attempts', '1']],
  ];
  const cases: Array<[string, string[]]> = [['node -e 0', ['-e', '0']], ...commandLines(main, ''), ...(baseline ? commandLines(baseline, ' (baseline)') : [])];
  const wall = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  const cpu = new Map<string, number[]>(cases.map(([name]) => [name, []]));
  const loads: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(os.loadavg()[0]!);
    for (let i = 0; i < cases.length; i++) {
      const [name, args] = cases[(round + i) % cases.length]!;
      const result = timed(process.execPath, args, { env: { PATH: process.env.PATH ?? '' } });
      if (result.status === 5 || result.status === null) throw new Error(`${name}: ${result.stderr}`);
      wall.get(name)!.push(result.wallS);
      cpu.get(name)!.push(result.cpuS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const spread = (xs: number[], digits: number) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}-${Math.max(...xs).toFixed(digits)})`;
  const bareWall = wall.get('node -e 0')!;
  const rows = cases.map(([name]) => {
    const xs = wall.get(name)!;
    // Each round's time over the same round's bare node: steadier than seconds on a loaded machine.
    const ratios = xs.map((x, i) => x / bareWall[i]!);
    const target = name.startsWith('dsbench') && !name.endsWith('(baseline)') ? (median(xs) <= LIMIT_S ? 'met' : 'over') : '';
    return `| ${name} | ${spread(xs, 3)} | ${spread(cpu.get(name)!, 3)} | ${spread(ratios, 1)} | ${target} |`;
  });
  const text = `# Start-up benchmark

\`node --import tsx bench/startup/index.ts${quick ? ' --quick' : ''}\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version},
${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, 1-minute load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} during the rounds
(a shared machine: other work ran at the same time). ${ROUNDS} paired rounds; whole processes, seconds,
median (min-max); CPU is user + system time (GNU time), which bends less with the load than wall time.

| command | wall s | CPU s | wall × node -e 0 in the same round | target ${LIMIT_S} s (wall) |
|---|---:|---:|---:|---|
${rows.join('\n')}
`;
  process.stdout.write(text);
  if (!quick && !baseline) writeFileSync(new URL('./RESULTS.md', import.meta.url), text);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
