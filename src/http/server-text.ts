import { z } from 'zod';
import { redact } from '../redact.js';

// Free text a server sends (answers, titles, error messages, alerts) may echo a credential back; every
// wire schema reads such text through these, so nothing downstream (store, print, export) sees it raw.
export const ServerText = z.string().transform(redact);
export const OptServerText = z.string().nullish().transform((v) => (v == null ? undefined : redact(v)));
