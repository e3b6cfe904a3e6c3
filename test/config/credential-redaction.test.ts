// The credential part of an authorization value is a secret on its own (a server may echo it bare); only
// credential-bearing headers are secrets, so an ordinary value never rewrites recorded answers.
import { describe, expect, it } from 'vitest';
import { connectionFor } from '../../src/config/credentials.js';
import { ProgressEvent } from '../../src/stream/events.js';
import { LegacyQuestionWire } from '../../src/deepsearch/legacy-wire.js';
import { redact } from '../../src/redact.js';

describe('credentials echoed back', () => {
  it('redacts the bare credential of Bearer and Basic values, and no ordinary header value', () => {
    connectionFor('http://127.0.0.1:1', 'Bearer oauthQ7zv91xk', { SRC_HEADERS: 'proxy-authorization: Basic dXNlcjpwYXNzWq9\nx-forwarded-proto: https' });
    expect(redact('echo oauthQ7zv91xk and dXNlcjpwYXNzWq9')).toBe('echo [REDACTED] and [REDACTED]');
    expect(redact('see https://example.com')).toBe('see https://example.com');
  });

  it('redacts every server string stored: legacy error kind, source type, the stream trace and skipped fields', () => {
    connectionFor('http://127.0.0.1:1', 'plainTok3nR8vw2', {});
    const q = LegacyQuestionWire.parse({ id: 1, status: 'failed plainTok3nR8vw2', error: { kind: 'plainTok3nR8vw2' }, sources: [{ type: 'plainTok3nR8vw2' }] });
    expect(JSON.stringify(q)).not.toContain('plainTok3nR8vw2');
    const p = ProgressEvent.parse({ matchCount: 0, trace: 'plainTok3nR8vw2', skipped: [{ reason: 'plainTok3nR8vw2', severity: 'plainTok3nR8vw2' }] });
    expect(JSON.stringify(p)).not.toContain('plainTok3nR8vw2');
  });
});
