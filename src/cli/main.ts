#!/usr/bin/env node
// The dsbench binary: the real process's io given to runCli, whose result is the exit code.
import { hideBin } from 'yargs/helpers';
import { handleStopSignals } from './signals.js';

// First: signals are handled from the first line of start-up (the command line's code is loaded after).
handleStopSignals();
const { runCli } = await import('./cli.js');
process.exitCode = await runCli(hideBin(process.argv), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
