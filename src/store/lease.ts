import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type Database from 'better-sqlite3';
import { LeaseLostError, RunHeldError } from '../errors/errors.js';
import type { LeaseHolder, RunLease } from '../model/lease.js';
import { storageErrorFrom } from './storage-error.js';

interface LeaseRow {
  holder: string;
  pid: number;
  host: string;
  acquired_at: string;
  heartbeat_at: string;
}

export interface LeaseOptions {
  /** A holder whose heartbeat is older than this is presumed gone (another host, or a reused pid). */
  staleMs: number;
  /** Whether a process of this host is alive; injectable for tests. */
  isAlive?: (pid: number) => boolean;
}


function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holderOf(row: LeaseRow): LeaseHolder {
  return { pid: row.pid, host: row.host, acquiredAt: row.acquired_at, heartbeatAt: row.heartbeat_at };
}

const SELECT_LEASE = 'SELECT holder, pid, host, acquired_at, heartbeat_at FROM run_leases WHERE run_id = ?';

/** Who holds a run now; undefined when no process does. */
export function leaseHolder(db: Database.Database, runId: number): LeaseHolder | undefined {
  const row = db.prepare<[number], LeaseRow>(SELECT_LEASE).get(runId);
  return row && holderOf(row);
}

/**
 * Takes the lease of a run for this process in one write transaction: free, or held by a process that is
 * provably gone (same host, pid not running) or silent for `staleMs`, it is ours (a takeover is reported
 * for the log); held by a live process, RunHeldError.
 */
export function acquireLease(db: Database.Database, runId: number, options: LeaseOptions): RunLease {
  const isAlive = options.isAlive ?? processAlive;
  const me = { holder: randomUUID(), pid: process.pid, host: hostname() };
  const select = db.prepare<[number], LeaseRow>(SELECT_LEASE);
  const take = db.prepare(`INSERT INTO run_leases (run_id, holder, pid, host, acquired_at, heartbeat_at) VALUES (@runId, @holder, @pid, @host, @at, @at)
    ON CONFLICT (run_id) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, host = excluded.host,
      acquired_at = excluded.acquired_at, heartbeat_at = excluded.heartbeat_at`);
  const beat = db.prepare('UPDATE run_leases SET heartbeat_at = @at WHERE run_id = @runId AND holder = @holder');
  const release = db.prepare('DELETE FROM run_leases WHERE run_id = @runId AND holder = @holder');
  const silentBefore = db.prepare<[number], string | null>('SELECT silent_takeover_at FROM runs WHERE id = ?').pluck();
  const markSilent = db.prepare('UPDATE runs SET silent_takeover_at = @at WHERE id = @runId AND silent_takeover_at IS NULL');
  /** Who holds the run instead of this process, for its messages. */
  const takenBy = () => {
    const row = select.get(runId);
    return row ? `pid ${row.pid} on host ${row.host} took it over at ${row.acquired_at}` : 'another process took it over and has released it';
  };

  const { takeover, earlierSendsGivenUpBy } = db
    .transaction((): { takeover: string | undefined; earlierSendsGivenUpBy: number | undefined } => {
      const row = select.get(runId);
      const now = Date.now();
      const at = new Date(now).toISOString();
      const gone = row !== undefined && row.host === me.host && !isAlive(row.pid);
      let takeover: string | undefined;
      if (row) {
        const silentMs = now - Date.parse(row.heartbeat_at);
        let why: string;
        if (gone) why = `process ${row.pid} is gone`;
        else if (!(silentMs <= options.staleMs)) why = `its heartbeat stopped ${Math.round(silentMs / 1000)} s ago`;
        else throw new RunHeldError(runId, holderOf(row), options.staleMs);
        takeover = `took over run ${runId} from pid ${row.pid} on host ${row.host} (held since ${row.acquired_at}): ${why}`;
        // It may be alive elsewhere, its items still sending: remembered past whoever holds the run next.
        if (!gone) markSilent.run({ runId, at });
      }
      take.run({ runId, ...me, at });
      // A holder that released the run (after its clients closed) or is gone sent nothing after now, unless
      // a silent one, which may still be sending, ever held it.
      return { takeover, earlierSendsGivenUpBy: silentBefore.get(runId) == null ? now : undefined };
    })
    .immediate();

  return {
    takeover,
    earlierSendsGivenUpBy,
    heartbeat: () => {
      if (beat.run({ runId, holder: me.holder, at: new Date().toISOString() }).changes > 0) return undefined;
      return takenBy();
    },
    fence: () => {
      const row = select.get(runId);
      if (row?.holder !== me.holder) throw new LeaseLostError(runId, takenBy());
    },
    release: () => {
      try {
        if (db.open) release.run({ runId, holder: me.holder });
      } catch (error) {
        throw storageErrorFrom(error, db.name) ?? error;
      }
    },
  };
}
