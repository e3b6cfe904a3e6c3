import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createAdminHandler } from './admin.js';
import { RequestLog, type RequestLogEntry } from './request-log.js';
import type { AddressInfo, Socket } from 'node:net';
import { serviceNoise } from './noise.js';
import { FakeAgent } from './agent.js';
import { createAuthenticator } from './auth.js';
import { nextMonthStart, VirtualClock } from './clock.js';
import { Counters } from './counters.js';
import { createDispatcher, UNMATCHED_OPERATION } from './dispatch.js';
import { FaultPlanner, type InjectFault } from './faults.js';
import { legacyRoutes } from './legacy-api.js';
import type { EmulatorHooks } from './hooks.js';
import { EmulatorOptionsSchema, type EmulatorOptions, type ResolvedEmulatorOptions } from './options.js';
import { QuotaLedger } from './quota.js';
import { Router } from './routes.js';
import { Tracer } from './tracing.js';
import { ConversationService, type QuestionRecordView } from './service.js';
import { ConversationStore } from './store.js';
import type { Scope } from './users.js';
import { versionedRoutes } from './versioned-api.js';
import { graphqlRoutes } from './graphql-api.js';
import { llmRoutes } from './llm-api.js';
import { rawRoutes } from './raw-api.js';
import { Corpus, createAgentSearch } from './corpus/index.js';
import { createStreamHandler, StreamFaultInjector } from './stream/index.js';

export interface TokenInfo {
  token: string;
  userId: number;
  username: string;
  scopes: readonly Scope[];
}

export interface RunningEmulator {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly port: number;
  readonly tokens: readonly TokenInfo[];
  /** The first read-write token of the first user, for quick starts. */
  readonly adminToken: string;
  readonly clock: VirtualClock;
  readonly options: ResolvedEmulatorOptions;
  /** Requests received per operation (faulted and rejected ones included), e.g. `legacy.create`. */
  counters(): Record<string, number>;
  /** Faults applied, keyed `<operation>.<kind>`. */
  faultCounters(): Record<string, number>;
  questionRecords(): QuestionRecordView[];
  /** The last requests (method, path, operation, status, latency), oldest first. */
  requestLog(limit?: number): RequestLogEntry[];
  /** Makes the next `times` requests of an operation suffer a fault. */
  injectFault(fault: InjectFault): void;
  /** Faults of the search stream: `enqueue(kind)` makes the next stream request suffer it. */
  readonly streamFaults: StreamFaultInjector;
  readonly corpus: Corpus;
  /** Closes every socket at once; idempotent. */
  stop(): Promise<void>;
}

/** Starts an emulated instance: `input` is its settings (plain data), `hooks` the code a caller plugs in. */
export async function startEmulator(input: EmulatorOptions = {}, hooks: EmulatorHooks = {}): Promise<RunningEmulator> {
  const options = EmulatorOptionsSchema.parse(input);
  const corpus = await Corpus.open(options.corpus);
  const streamFaults = new StreamFaultInjector(options.stream.faults);
  const server = createServer();
  const sockets = trackSockets(server);
  const port = await listen(server, options.port, options.host);
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  const publicUrl = (options.publicUrl ?? url).replace(/\/+$/, '');

  const clock = new VirtualClock(options.timeScale, (options.startTime ? Date.parse(options.startTime) : Date.now()) + options.faults.clockOffsetMs);
  const service = conversationService(options, hooks, corpus, clock, publicUrl);
  const llm = { gated: options.llmGated };
  const tracer = new Tracer(() => clock.now(), (id) => service.cursorTarget(id));
  const router = emulatorRouter({ options, hooks, corpus, service, publicUrl, llm, tracer, streamFaults, clock });
  const requests = new Counters();
  for (const operation of [...router.routes.map((r) => r.operation), UNMATCHED_OPERATION]) {
    requests.register(operation);
  }
  const faultCounts = new Counters();
  const faults = new FaultPlanner(options.faults, options.seed);
  const lifetime = new AbortController();
  const dispatch = createDispatcher({
    router,
    authenticate: createAuthenticator(options.users),
    faults,
    requests,
    faultCounts,
    signal: lifetime.signal,
    now: () => clock.now(),
    tracer,
  });
  const requestLog = new RequestLog(options.admin.logSize, hooks.onRequest);
  const admin = options.admin.token
    ? createAdminHandler({
        token: options.admin.token,
        counters: () => requests.snapshot(),
        faultCounters: () => faultCounts.snapshot(),
        log: requestLog,
        faults,
        streamFaults,
        shiftClock: (ms) => clock.shift(ms),
        llm,
      })
    : undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (admin && (await admin(req, res))) return;
    requestLog.track(req, res, operationOf(router, req));
    await dispatch(req, res);
  };
  server.on('request', (req, res) => {
    handle(req, res).catch(() => res.destroy());
  });

  const tokens = tokensOf(options);
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    tokens,
    adminToken: adminTokenOf(options, tokens),
    clock,
    options,
    counters: () => requests.snapshot(),
    faultCounters: () => faultCounts.snapshot(),
    questionRecords: () => service.questionRecords(),
    requestLog: (limit) => requestLog.recent(limit),
    injectFault: (fault) => faults.inject(fault),
    streamFaults,
    corpus,
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        lifetime.abort();
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      })),
  };
}

/** The conversations, their agent and the quota they draw on. */
function conversationService(options: ResolvedEmulatorOptions, hooks: EmulatorHooks, corpus: Corpus, clock: VirtualClock, publicUrl: string): ConversationService {
  const quota = new QuotaLedger(
    options.quota.limit,
    options.quota.resetTime ? Date.parse(options.quota.resetTime) : nextMonthStart(clock.startMs),
  );
  const agent = new FakeAgent({
    seed: options.seed,
    medianMs: options.medianMs,
    sigma: options.sigma,
    agent: options.agent,
    search: hooks.search ?? createAgentSearch(corpus),
    linkBase: publicUrl,
    noise: serviceNoise(options.noise, options.seed),
  });
  return new ConversationService({
    store: new ConversationStore(),
    agent,
    quota,
    clock,
    sharingEnabled: options.sharingEnabled,
    rateLimitRetryMs: options.agent.rateLimitRetryMs,
  });
}

interface RouterParts {
  options: ResolvedEmulatorOptions;
  hooks: EmulatorHooks;
  corpus: Corpus;
  service: ConversationService;
  publicUrl: string;
  llm: { gated: boolean };
  tracer: Tracer;
  streamFaults: StreamFaultInjector;
  clock: VirtualClock;
}

/** Every route the instance answers, in match order. */
function emulatorRouter({ options, hooks, corpus, service, publicUrl, llm, tracer, streamFaults, clock }: RouterParts): Router {
  const { flushIntervalMs, flushBytes, progressIntervalMs } = options.stream;
  const apiDeps = { service, publicUrl, followUpReply: options.legacy.followUpReply };
  return new Router([
    ...legacyRoutes(apiDeps),
    ...tracer.routes(),
    ...versionedRoutes(apiDeps),
    {
      method: 'GET',
      path: '/.api/search/stream',
      operation: 'stream.search',
      handler: createStreamHandler({ corpus, faults: streamFaults }, { flushIntervalMs, flushBytes, progressIntervalMs, timeScale: options.timeScale }),
    },
    ...llmRoutes(corpus, options.llmModels, () => clock.now(), llm),
    ...(hooks.extraRoutes ?? []),
    ...graphqlRoutes(options.productVersion),
    // Last: its wildcard would otherwise shadow an extra route under `/-/raw/`.
    ...rawRoutes(corpus),
  ]);
}

function tokensOf(options: ResolvedEmulatorOptions): TokenInfo[] {
  return options.users.flatMap((u) => u.tokens.map((t) => ({ token: t.token, userId: u.id, username: u.username, scopes: t.scopes })));
}

/** The first read-write token of the first user, else the first token there is. */
function adminTokenOf(options: ResolvedEmulatorOptions, tokens: readonly TokenInfo[]): string {
  const firstUserId = options.users[0]?.id;
  return tokens.find((t) => t.userId === firstUserId && t.scopes.includes('externalapi:write'))?.token ?? tokens[0]?.token ?? '';
}

function operationOf(router: Router, req: IncomingMessage): string {
  const match = router.match(req.method ?? 'GET', new URL(req.url ?? '/', 'http://emulator.invalid').pathname);
  return match.kind === 'none' ? UNMATCHED_OPERATION : match.route.operation;
}

function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
