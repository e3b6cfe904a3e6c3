import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import type { FaultRates } from './options.js';
import { createRng, hashSeed, type Rng } from './random.js';

export const FAULT_KINDS = [
  '429',
  '500',
  '503',
  'reset',
  'proxy502',
  'slow',
  'resetAfterAction',
  'dropField',
] as const;

export const InjectFaultSchema = z
  .object({
    /** Counter name of the operation, e.g. `legacy.create`. */
    operation: z.string().min(1),
    kind: z.enum(FAULT_KINDS),
    /** How many of the next requests of the operation suffer it. */
    times: z.number().int().positive().default(1),
    /** Dotted path dropped from the reply (`dropField`), e.g. `id` or `questions.0.id`. */
    field: z.string().min(1).optional(),
    /** Real ms of delay (`slow`); default the configured slowMs. */
    delayMs: z.number().int().min(0).optional(),
    /** Retry-After of a `429`; default the configured retryAfterSeconds. */
    retryAfterSeconds: z.number().int().min(0).optional(),
  })
  .refine((f) => f.kind !== 'dropField' || f.field !== undefined, { message: 'dropField needs a field' });
export type InjectFault = z.input<typeof InjectFaultSchema>;

/** Faults that stop the request before its handler acts. */
export type BeforeActionFault =
  | { kind: '429'; retryAfterSeconds: number }
  | { kind: '500' | '503' | 'reset' | 'proxy502' };
/** A delay before the handler, which then acts normally. */
export type SlowFault = { kind: 'slow'; delayMs: number };
/** Faults applied to the reply once the handler acted. */
export type AfterActionFault = { kind: 'resetAfterAction' } | { kind: 'dropField'; field: string };
export type Fault = BeforeActionFault | SlowFault | AfterActionFault;

interface Pending {
  fault: Fault;
  remaining: number;
}

/** Decides each request's fault: injected ones first, else one seeded draw against the rates. */
export class FaultPlanner {
  private readonly rng: Rng;
  private readonly injected = new Map<string, Pending[]>();

  constructor(
    private rates: FaultRates,
    seed: number | string,
  ) {
    this.rng = createRng(hashSeed(seed, 'faults'));
  }

  /** The settings in force, not to be changed by the caller. */
  get settings(): Readonly<FaultRates> {
    return this.rates;
  }

  /** A copy of the settings in force. */
  current(): FaultRates {
    return { ...this.rates };
  }

  /** Replaces the rates from now on (the admin interface); already validated. */
  setRates(rates: FaultRates): void {
    this.rates = { ...rates };
  }

  inject(input: InjectFault): void {
    const spec = InjectFaultSchema.parse(input);
    const queue = this.injected.get(spec.operation) ?? [];
    queue.push({ fault: this.build(spec), remaining: spec.times });
    this.injected.set(spec.operation, queue);
  }

  /** One draw per request whatever happens, so the rate sequence does not depend on injections. */
  next(operation: string): Fault | undefined {
    const draw = this.rng.next();
    return this.takeInjected(operation) ?? this.byRate(draw);
  }

  private takeInjected(operation: string): Fault | undefined {
    const queue = this.injected.get(operation);
    const head = queue?.[0];
    if (!queue || !head) return undefined;
    head.remaining -= 1;
    if (head.remaining <= 0) queue.shift();
    return head.fault;
  }

  private byRate(draw: number): Fault | undefined {
    const r = this.rates;
    const table: Array<[number, Fault]> = [
      [r.rate429, { kind: '429', retryAfterSeconds: r.retryAfterSeconds }],
      [r.rate500, { kind: '500' }],
      [r.rate503, { kind: '503' }],
      [r.rateReset, { kind: 'reset' }],
      [r.rateProxy502, { kind: 'proxy502' }],
      [r.rateSlow, { kind: 'slow', delayMs: r.slowMs }],
      [r.rateResetAfterAction, { kind: 'resetAfterAction' }],
    ];
    let threshold = 0;
    for (const [rate, fault] of table) {
      threshold += rate;
      if (draw < threshold) return fault;
    }
    return undefined;
  }

  private build(spec: z.output<typeof InjectFaultSchema>): Fault {
    switch (spec.kind) {
      case '429':
        return { kind: '429', retryAfterSeconds: spec.retryAfterSeconds ?? this.rates.retryAfterSeconds };
      case 'slow':
        return { kind: 'slow', delayMs: spec.delayMs ?? this.rates.slowMs };
      case 'dropField':
        return { kind: 'dropField', field: spec.field ?? '' };
      default:
        return { kind: spec.kind };
    }
  }
}

export function isBeforeAction(fault: Fault): fault is BeforeActionFault {
  return fault.kind === '429' || fault.kind === '500' || fault.kind === '503' || fault.kind === 'reset' || fault.kind === 'proxy502';
}

const PROXY_502_PAGE = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx</center>
</body>
</html>
`;

const FAULT_MESSAGES = { '429': 'too many requests', '500': 'internal server error', '503': 'service unavailable' };

/** 429/500/503 come from the application, in the route's format; 502 from a proxy, as HTML. */
export function writeBeforeActionFault(
  res: ServerResponse,
  fault: BeforeActionFault,
  writeError: (status: number, message: string) => void,
): void {
  switch (fault.kind) {
    case 'reset':
      res.socket?.destroy();
      return;
    case 'proxy502':
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end(PROXY_502_PAGE);
      return;
    case '429':
      res.setHeader('Retry-After', String(fault.retryAfterSeconds));
      writeError(429, FAULT_MESSAGES['429']);
      return;
    default:
      writeError(Number(fault.kind), FAULT_MESSAGES[fault.kind]);
  }
}
