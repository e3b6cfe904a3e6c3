#!/usr/bin/env node
// The dsbench binary: the real process's io given to runCli, whose result is the exit code.
import './handle-signals.js';
import { hideBin } from 'yargs/helpers';
import { runCli } from './cli.js';

process.exitCode = await runCli(hideBin(process.argv), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
