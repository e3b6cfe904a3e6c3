import { UsageError } from '../errors/errors.js';
import { registerHeaderSecrets, registerSecret } from '../redact.js';
import { CLIENT_NAME, VERSION } from '../version.js';

import type { ApiFlavour } from '../model/api-flavour.js';

export type { ApiFlavour };

/** Where to connect and how to authenticate, read the way the platform's own CLI reads it. */
export interface Connection {
  endpoint: string;
  token: string | undefined;
  /** Extra headers from `SRC_HEADER_<NAME>` and `SRC_HEADERS`, names lower-cased. */
  extraHeaders: Record<string, string>;
}

export type Env = Record<string, string | undefined>;

/** Normalizes and checks a base URL given by flag or environment. */
export function normalizeEndpoint(raw: string, source: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UsageError(`${source}: "${raw}" is not a URL; give the instance's base URL, e.g. https://sourcegraph.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source}: "${raw}" must use http or https`);
  }
  if (url.username || url.password) {
    throw new UsageError(`${source}: put credentials in SRC_ACCESS_TOKEN, not in the URL`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** Extra headers: `SRC_HEADER_<NAME>=value` and `SRC_HEADERS="k1:v1\nk2:v2"`. */
export function extraHeadersFromEnv(env: Env): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined || !key.startsWith('SRC_HEADER_')) continue;
    const name = key.slice('SRC_HEADER_'.length).trim().toLowerCase();
    if (name) headers[name] = value;
  }
  for (const [index, line] of (env.SRC_HEADERS ?? '').split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    // The line is not quoted: it may well be a credential written as name=value.
    if (colon <= 0) throw new UsageError(`SRC_HEADERS: line ${index + 1} is not of the form name:value (one header per line)`);
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Reads a connection for a real endpoint. `tokenVariable` names where the token came from, for messages
 * (`SRC_ACCESS_TOKEN`, or `DSBENCH_TOKEN_<NAME>` for a named target).
 */
export function connectionFor(endpoint: string, token: string | undefined, env: Env, tokenVariable = 'SRC_ACCESS_TOKEN'): Connection {
  const extraHeaders = extraHeadersFromEnv(env);
  const trimmed = token?.trim() || undefined;
  if (trimmed && extraHeaders.authorization !== undefined) {
    throw new UsageError(`both ${tokenVariable} and an authorization header (SRC_HEADER_AUTHORIZATION or SRC_HEADERS) are set; keep one`);
  }
  if (!trimmed && extraHeaders.authorization === undefined && env.CI) {
    throw new UsageError(`${tokenVariable} is required when CI is set (running against ${endpoint})`);
  }
  registerSecret(trimmed);
  // Extra headers are often proxy credentials: those whose names say so are secrets.
  registerHeaderSecrets(extraHeaders);
  return { endpoint, token: trimmed, extraHeaders };
}

/** Connection from flags and environment; undefined when neither names an endpoint (then the emulator is used). */
export function connectionFromEnv(env: Env, endpointFlag?: string): Connection | undefined {
  const raw = endpointFlag ?? env.SRC_ENDPOINT;
  if (raw === undefined || raw.trim() === '') return undefined;
  const source = endpointFlag !== undefined ? '--endpoint' : 'SRC_ENDPOINT';
  return connectionFor(normalizeEndpoint(raw, source), env.SRC_ACCESS_TOKEN, env);
}

/** `token <t>` for access tokens; a value already written as `Bearer <t>` (OAuth) is sent as it is. */
export function authorizationValue(token: string): string {
  return /^bearer\s/i.test(token) ? token : `token ${token}`;
}

// `graphql`: the instance's GraphQL API (the product version).
export type HeaderPurpose = ApiFlavour | 'stream' | 'graphql';

/** Headers for one API: credentials, user agent, and each flavour's own requirement. */
export function headersFor(connection: Connection, purpose: HeaderPurpose): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': `${CLIENT_NAME}/${VERSION}`,
    ...connection.extraHeaders,
  };
  if (connection.token) headers.authorization = authorizationValue(connection.token);
  if (purpose === 'legacy') headers['x-requested-with'] = `${CLIENT_NAME} ${VERSION}`;
  if (purpose === 'versioned') headers['connect-protocol-version'] = '1';
  return headers;
}
