import type { EmulatorUser, Scope } from './users.js';

export interface Principal {
  user: EmulatorUser;
  scopes: readonly Scope[];
}

export type AuthResult = { ok: true; principal: Principal } | { ok: false; status: 401; text: string };

export const NO_TOKEN_TEXT = 'Private mode requires authentication.\n';
export const BAD_TOKEN_TEXT = 'Invalid access token.\n';

/** Resolves `Authorization: token <t>` or `Bearer <t>` the way the frontend does, before any API. */
export function createAuthenticator(users: readonly EmulatorUser[]): (header: string | undefined) => AuthResult {
  const grants = new Map<string, Principal>();
  for (const user of users) {
    for (const grant of user.tokens) grants.set(grant.token, { user, scopes: grant.scopes });
  }
  return (header) => {
    if (header === undefined || header.trim() === '') return { ok: false, status: 401, text: NO_TOKEN_TEXT };
    const match = /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header.trim());
    const principal = match?.[1] === undefined ? undefined : grants.get(match[1]);
    return principal ? { ok: true, principal } : { ok: false, status: 401, text: BAD_TOKEN_TEXT };
  };
}
