// Whole processes for the runner's benchmarks: an emulator in its own process, and measured children
// that report their own CPU time and peak RSS as they exit (so the figures are theirs alone).
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface Emulator {
  url: string;
  token: string;
  /** Of its admin interface (counters, faults): `Authorization: Bearer <adminToken>`. */
  adminToken: string;
  stop: () => void;
}

export interface Measured {
  code: number | null;
  wallS: number;
  /** User + system CPU of the child, ms. */
  cpuMs: number;
  peakRssMb: number;
  stdout: string;
  stderr: string;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'dsbench-runner-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
/** Loaded into each measured process: prints its own CPU time and peak RSS as it exits. */
const usage = path.join(dir, 'usage.mjs');
writeFileSync(usage, "process.on('exit', () => { const u = process.resourceUsage(); process.stderr.write(`USAGE ${u.userCPUTime + u.systemCPUTime} ${u.maxRSS}\\n`); });\n");

export const benchDir = dir;

function node(args: string[], env: Record<string, string> = {}) {
  return spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...env } });
}

/** An emulator (the CLI at `main`) in its own process, answering at once unless `extra` says otherwise. */
export async function startEmulator(main: string, extra: string[] = []): Promise<Emulator> {
  const corpus = mkdtempSync(path.join(dir, 'corpus-'));
  mkdirSync(corpus, { recursive: true });
  const adminToken = randomUUID();
  const child = node([main, 'emulator', '--port', '0', '--json', '--time-scale', '1e-9', '--corpus', corpus, ...extra], { DSBENCH_EMULATOR_ADMIN_TOKEN: adminToken });
  child.stderr!.resume();
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  const info = JSON.parse(line) as { url: string; tokens: Array<{ token: string; scopes: string[] }> };
  const token = info.tokens.find((t) => t.scopes.includes('externalapi:write'))?.token ?? '';
  return { url: info.url, token, adminToken, stop: () => child.kill('SIGTERM') };
}

/** A request of the bench itself, retried: the emulator's faults hit it too until they are switched off. */
async function retried(url: string, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(url, init);
      if (res.ok || attempt >= 20) return res;
    } catch (error) {
      if (attempt >= 20) throw error;
    }
  }
}

/** Switches the emulator's HTTP faults off, through its admin interface. */
export async function faultsOff({ url, adminToken }: Emulator): Promise<void> {
  const off = await retried(`${url}/-/emulator/faults`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ http: { rate503: 0, rateReset: 0 } }),
  });
  if (!off.ok) throw new Error(`switching the emulator's faults off failed: HTTP ${off.status} ${await off.text()}`);
}

/** Every conversation on the emulator, counted through its own list (faults switched off first). */
export async function conversationsOn(emulator: Emulator): Promise<number> {
  await faultsOff(emulator);
  const headers = { authorization: `token ${emulator.token}`, 'content-type': 'application/json', 'connect-protocol-version': '1' };
  let count = 0;
  let pageToken: string | undefined;
  do {
    const res = await retried(`${emulator.url}/api/deepsearch.v1.Service/ListConversationSummaries`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ parent: 'users/~self', pageSize: 1000, ...(pageToken && { pageToken }) }),
    });
    const page = (await res.json()) as { conversationSummaries?: unknown[]; nextPageToken?: string };
    count += page.conversationSummaries?.length ?? 0;
    pageToken = page.nextPageToken;
  } while (pageToken);
  return count;
}

/**
 * Runs `node args` to its end; its own CPU and peak RSS as it reported them. With `killWhen`, checked every
 * 250 ms, the process is killed (SIGKILL, as a crash) once it says so; it then reports no usage.
 */
export async function measure(args: string[], env: Record<string, string> = {}, killWhen?: () => boolean): Promise<Measured> {
  const started = performance.now();
  const child = node(['--import', usage, ...args], env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const watch = killWhen && setInterval(() => killWhen() && child.kill('SIGKILL'), 250);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(watch);
  const wallS = (performance.now() - started) / 1000;
  if (killWhen && child.signalCode === 'SIGKILL') return { code, wallS, cpuMs: NaN, peakRssMb: NaN, stdout, stderr };
  const found = /USAGE (\d+) (\d+)/.exec(stderr);
  if (!found) throw new Error(`node ${args.join(' ')} exited ${code} without its usage: ${stderr.slice(-500)}`);
  return { code, wallS, cpuMs: Number(found[1]) / 1000, peakRssMb: Number(found[2]) / 1024, stdout, stderr };
}

/** A suite of 20 distinct questions repeated to `questions` items, optionally each with one follow-up. */
export function writeSuite(questions: number, options: { concurrency?: number; followups?: boolean; api?: 'legacy' | 'versioned' } = {}): string {
  const file = path.join(dir, `suite-${questions}-${options.followups ? 'f' : 'q'}-${options.api ?? 'v'}.yaml`);
  const followup = (i: number) => (options.followups ? `\n    followups:\n      - "Bench follow-up ${i}"` : '');
  const items = Array.from({ length: 20 }, (_, i) => `  - id: q${i}\n    question: "Bench question ${i}"${followup(i)}`).join('\n');
  const api = options.api ? `\n  api: ${options.api}` : '';
  writeFileSync(file, `name: bench\ndefaults:\n  concurrency: ${options.concurrency ?? 200}\n  repeats: ${Math.ceil(questions / 20)}${api}\nquestions:\n${items}\n`);
  return file;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `median (min-max)`. */
export function spread(values: number[], digits = 2): string {
  return `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;
}
