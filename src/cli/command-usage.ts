/**
 * Each command's usage line and description: all `dsbench --help` needs, so it loads no command's code.
 * A command module spreads its entry; src/cli/main.ts imports the module only when that command runs.
 */
export const commandUsage = {
  ask: { command: 'ask <question>', describe: 'Ask one conversation (and its follow-ups) and print the answer, sources and stats' },
  conversations: { command: 'conversations', describe: 'Manage conversations on the instance (list, show, cancel, delete)' },
  run: { command: 'run [suite]', describe: 'Run a suite of questions and searches on one or more instances, recording everything in SQLite' },
  search: { command: 'search <query>', describe: 'Run one streaming search and print its exhaustive count and verdict' },
  emulator: { command: 'emulator', describe: 'Run the emulated instance (both Deep Search APIs and the search stream) until interrupted' },
  runs: {
    command: 'runs',
    describe: 'List the recorded runs, newest first (id, label, suite, targets, start, status, verdict and exit code, outcomes, checks, credits)',
  },
  report: {
    command: 'report [run]',
    describe: 'Export a run as CSV (questions, searches, summary, costs) with a summary, or a trend over runs (--history)',
  },
  compare: { command: 'compare <baseline> [candidate]', describe: 'Compare two runs (or two targets) item by item; exit 1 when a regression gate fails' },
  baseline: { command: 'baseline', describe: 'Name runs as baselines (bless, list, drop), compared with as blessed:<name>' },
  confirm: {
    command: 'confirm <run>',
    describe: 'A second look before red: re-ask the questions behind a failing (or nearly failing) gate of <run> against --baseline, within a budget, and decide again keeping the false-alarm rate',
  },
  plan: { command: 'plan [baseline] [candidate]', describe: 'How many questions x repeats a suite needs to detect a given change, from the noise of two earlier runs' },
  merge: {
    command: 'merge <databases..>',
    describe: 'Merge the shards of a run split with dsbench run --shard (one database each) into one run of another database',
  },
  suite: {
    command: 'suite',
    describe: 'Work with suite files: import questions from CSV or JSONL, generate a suite whose answers can be checked from the instance index, or verify a generated one still holds',
  },
  view: { command: 'view', describe: 'Browse the results database in a web browser, read-only and live while a run records' },
  grade: {
    command: 'grade <run>',
    describe: 'Grade (or re-grade) a recorded run with the judge and check its citations, without asking the service again',
  },
} as const;

export type CommandName = keyof typeof commandUsage;
