// What the store keeps of a target's product version over a run's life: the first version read stays, a resume
// that reads another keeps it apart, an unknown one is filled in by a later reading, and a run recorded before
// versions were (no row values) reads as unknown. Shards merged into one run keep theirs.
import { describe, expect, it } from 'vitest';
import { runProductVersions, runTargets, runVersionsText } from '../../src/store/queries.js';
import { type Store } from '../../src/store/store.js';
import { TARGETS, recordRun, useTempStore } from '../report/fixtures.js';

let store: Store;
useTempStore((t) => ({ store } = t));

describe('a target product version as stored', () => {
  it('keeps the first version read; a resume reading another keeps it apart', () => {
    const runId = recordRun(store, [], { status: 'running' });
    const r = store.recorder;
    expect(r.productVersion(runId, 'prod', { version: '6.9.2' })).toBe('6.9.2');
    expect(r.productVersion(runId, 'prod', { version: '6.9.2' })).toBe('6.9.2');
    expect(r.productVersion(runId, 'prod', { version: '7.0.1' })).toBe('6.9.2');
    // An unreadable version on a later resume changes nothing.
    expect(r.productVersion(runId, 'prod', { unknown: 'HTTP 500' })).toBe('6.9.2');
    r.commit();
    const [prod] = runProductVersions(store.db, runId);
    expect(prod).toEqual({ target: 'prod', version: '6.9.2', error: null, onResume: '7.0.1' });
    expect(runVersionsText([prod!])).toBe('6.9.2 (7.0.1 on resume)');
  });

  it('records why a version is unknown, and fills it in when a resume can read it', () => {
    const runId = recordRun(store, [], { status: 'running' });
    const r = store.recorder;
    expect(r.productVersion(runId, 'staging', { unknown: 'POST /.api/graphql failed with HTTP 404' })).toBeNull();
    r.commit();
    expect(runProductVersions(store.db, runId)).toEqual([
      { target: 'prod', version: null, error: null, onResume: null },
      { target: 'staging', version: null, error: 'POST /.api/graphql failed with HTTP 404', onResume: null },
    ]);
    expect(runTargets(store.db, runId)[1]).toMatchObject({ productVersion: null, productVersionError: 'POST /.api/graphql failed with HTTP 404' });
    expect(r.productVersion(runId, 'staging', { version: '7.0.1' })).toBe('7.0.1');
    r.commit();
    expect(runProductVersions(store.db, runId)[1]).toEqual({ target: 'staging', version: '7.0.1', error: null, onResume: null });
  });

  it('says unknown for a run with no version, and names each target when they differ', () => {
    const runId = recordRun(store, [], { targets: TARGETS });
    expect(runVersionsText(runProductVersions(store.db, runId))).toBe('unknown');
    store.recorder.productVersion(runId, 'prod', { version: '6.9.2' });
    store.recorder.commit();
    expect(runVersionsText(runProductVersions(store.db, runId))).toBe('prod 6.9.2, staging unknown');
  });
});
