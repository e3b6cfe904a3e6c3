import { describe, expect, it } from 'vitest';
import { connectionFromEnv, extraHeadersFromEnv, headersFor, normalizeEndpoint } from '../../src/config/credentials.js';
import { UsageError } from '../../src/errors/errors.js';
import { ExitCode } from '../../src/errors/exit-codes.js';
import { redact } from '../../src/redact.js';
import { VERSION } from '../../src/version.js';

describe('credentials and headers', () => {
  it('reads SRC_ENDPOINT and SRC_ACCESS_TOKEN, trimming the trailing slash', () => {
    const c = connectionFromEnv({ SRC_ENDPOINT: 'https://sg.example.com/', SRC_ACCESS_TOKEN: 'sgp_abc123def' })!;
    expect(c.endpoint).toBe('https://sg.example.com');
    expect(headersFor(c, 'versioned').authorization).toBe('token sgp_abc123def');
  });

  it('prefers --endpoint over SRC_ENDPOINT and returns nothing when neither is set (emulator)', () => {
    expect(connectionFromEnv({ SRC_ENDPOINT: 'https://a.example' }, 'https://b.example')!.endpoint).toBe('https://b.example');
    expect(connectionFromEnv({})).toBeUndefined();
  });

  it('sends the headers each flavour needs', () => {
    const c = connectionFromEnv({ SRC_ENDPOINT: 'http://x.example', SRC_ACCESS_TOKEN: 'sgp_tok1234' })!;
    const legacy = headersFor(c, 'legacy');
    expect(legacy['x-requested-with']).toBe(`dsbench ${VERSION}`);
    expect(legacy['user-agent']).toBe(`dsbench/${VERSION}`);
    expect(legacy['connect-protocol-version']).toBeUndefined();
    const versioned = headersFor(c, 'versioned');
    expect(versioned['connect-protocol-version']).toBe('1');
    expect(versioned['x-requested-with']).toBeUndefined();
    expect(headersFor(c, 'stream')['connect-protocol-version']).toBeUndefined();
  });

  it('sends an OAuth token written as "Bearer <t>" as it is', () => {
    const c = connectionFromEnv({ SRC_ENDPOINT: 'http://x.example', SRC_ACCESS_TOKEN: 'Bearer oauth-abcdef' })!;
    expect(headersFor(c, 'versioned').authorization).toBe('Bearer oauth-abcdef');
  });

  it('reads SRC_HEADER_<NAME> and SRC_HEADERS, names lower-cased', () => {
    expect(extraHeadersFromEnv({ SRC_HEADER_X_Proxy: 'a', SRC_HEADERS: 'k1: v1\nK2:v2:with-colon\n' })).toEqual({ x_proxy: 'a', k1: 'v1', k2: 'v2:with-colon' });
  });

  it('does not quote a malformed SRC_HEADERS line, which may hold a credential', () => {
    expect(() => extraHeadersFromEnv({ SRC_HEADERS: 'x-a: 1\nx-api-key=s3cr3t-value' })).toThrow(
      new UsageError('SRC_HEADERS: line 2 is not of the form name:value (one header per line)'),
    );
  });

  it.each([
    [{ SRC_ENDPOINT: 'http://x.example', SRC_HEADERS: 'no-colon-here' }, 'SRC_HEADERS'],
    [{ SRC_ENDPOINT: 'http://x.example', SRC_ACCESS_TOKEN: 'sgp_x1234', SRC_HEADER_AUTHORIZATION: 'token y' }, 'keep one'],
    [{ SRC_ENDPOINT: 'http://x.example', CI: 'true' }, 'required when CI is set'],
    [{ SRC_ENDPOINT: 'ftp://x.example' }, 'http or https'],
    [{ SRC_ENDPOINT: 'not a url' }, 'is not a URL'],
    [{ SRC_ENDPOINT: 'https://user:pw@x.example' }, 'not in the URL'],
  ])('rejects bad configuration %j with a usage error', (env, message) => {
    let error: unknown;
    try {
      connectionFromEnv(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(ExitCode.usage);
    expect((error as Error).message).toContain(message);
  });

  it('names the flag in endpoint errors', () => {
    expect(() => normalizeEndpoint('nope', '--endpoint')).toThrow(/--endpoint/);
  });

  it('registers the configured token so it is redacted verbatim anywhere', () => {
    connectionFromEnv({ SRC_ENDPOINT: 'http://x.example', SRC_ACCESS_TOKEN: 'plainsecretvalue' });
    expect(redact('the token plainsecretvalue leaked')).not.toContain('plainsecretvalue');
  });
});

describe('redact', () => {
  it.each([
    'Authorization: token sgp_0123456789abcdef',
    'Authorization: Bearer abcdefghijk',
    '{"read_token":"6c1f2b1e-1111-2222-3333-444455556666"}',
    'https://sg.example.com/deepsearch/6c1f2b1e-1111-2222-3333-444455556666',
    '/.api/deepsearch/v1?filter_read_token=secretvalue&page_first=1',
    // Every pattern in other letter cases and alone in its text (redact first looks for their words).
    'AUTHORIZATION: BEARER abcdefghijk',
    'bearer abcdefghijk',
    'TOKEN abcdefghijk1',
    'sgp_0123456789abcdef',
    'ACCESS_TOKEN=secretvalue',
    'readToken: "secretvalue"',
    'https://sg.example.com/DEEPSEARCH/6C1F2B1E-1111-2222-3333-444455556666',
    '/x?TOKEN=secretvalue',
  ])('hides the secret in %s', (text) => {
    const out = redact(text);
    expect(out).toContain('[REDACTED]');
    expect(out).not.toMatch(/sgp_0123|abcdefghijk|444455556666|secretvalue/);
  });
});

describe('redact leaves ordinary words alone', () => {
  it.each(['The search exceeded the maximum token limit of 100000.', 'token budget exhausted', 'Bearer of bad news'])('%s', (text) => {
    expect(redact(text)).toBe(text);
  });

  it('still hides a header value written as a word', () => {
    expect(redact('Authorization: token abcdefghij')).toBe('Authorization: token [REDACTED]');
  });
});
