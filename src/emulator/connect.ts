import type { ServerResponse } from 'node:http';
import type { ErrorWriter } from './routes.js';

/** Connect RPC error codes and their HTTP statuses. */
export const CONNECT_HTTP_STATUS = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
} as const;
export type ConnectCode = keyof typeof CONNECT_HTTP_STATUS;

const CODE_FOR_STATUS: Record<number, ConnectCode> = {
  400: 'invalid_argument',
  401: 'unauthenticated',
  403: 'permission_denied',
  404: 'not_found',
  409: 'aborted',
  413: 'resource_exhausted',
  429: 'resource_exhausted',
  499: 'canceled',
  500: 'internal',
  501: 'unimplemented',
  503: 'unavailable',
  504: 'deadline_exceeded',
};

export function writeConnectError(res: ServerResponse, code: ConnectCode, message: string): void {
  res.writeHead(CONNECT_HTTP_STATUS[code], { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ code, message }));
}

export const writeConnectErrorForStatus: ErrorWriter = (res, status, message) =>
  writeConnectError(res, CODE_FOR_STATUS[status] ?? 'unknown', message);
