import path from 'node:path';

export interface S3Settings {
  /** Empty: AWS itself (the region decides the host). */
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `bucket` in the path rather than the host name (MinIO, Garage and most self-hosted servers need it). */
  forcePathStyle: boolean;
  /** Prepended to every object key, so one bucket can hold several deployments. */
  prefix: string;
}

function s3Settings(env: NodeJS.ProcessEnv, required: boolean): S3Settings {
  const bucket = env.S3_BUCKET?.trim() || '';
  if (required && !bucket) throw new ConfigError('FILE_STORAGE=s3 needs S3_BUCKET');
  const prefix = (env.S3_PREFIX ?? '').trim().replace(/^\/+/, '');
  const endpoint = env.S3_ENDPOINT?.trim() || null;
  if (endpoint && !/^https?:\/\/[^/]/.test(endpoint)) throw new ConfigError(`S3_ENDPOINT must be an http(s) URL, got "${endpoint}"`);
  return {
    endpoint,
    region: env.S3_REGION?.trim() || 'us-east-1',
    bucket,
    accessKeyId: env.S3_ACCESS_KEY_ID || null,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || null,
    forcePathStyle: ['1', 'true', 'yes'].includes((env.S3_FORCE_PATH_STYLE ?? '').trim().toLowerCase()),
    prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix,
  };
}

function fileStorage(raw: string | undefined): 'local' | 's3' {
  const value = (raw ?? '').trim().toLowerCase() || 'local';
  if (value !== 'local' && value !== 's3') throw new ConfigError(`FILE_STORAGE must be local or s3, got "${raw}"`);
  return value;
}

/** Every setting the service reads from the environment, validated once at start. */
export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  /** PGlite data directory; `memory://` keeps everything in memory. Ignored when databaseUrl is set. */
  dataDir: string;
  /** PostgreSQL connection string; when set the service uses a pool instead of PGlite. */
  databaseUrl: string | null;
  databasePoolSize: number;
  /**
   * A session-holding connection for LISTEN/NOTIFY and advisory locks (DATABASE_DIRECT_URL), when
   * DATABASE_URL goes through a pooler in transaction mode (PgBouncer); unset, DATABASE_URL itself.
   */
  databaseDirectUrl: string | null;
  /** Named (server-side prepared) statements; off behind PgBouncer's transaction pooling before 1.21. */
  databasePreparedStatements: boolean;
  /** Longest wait for a pooled connection, or for a new one to connect. */
  databaseConnectTimeoutMs: number;
  /** One statement's limit, on the server (statement_timeout) and in the client (a stalled network). */
  databaseQueryTimeoutMs: number;
  /** The statement limit of long background work (exports, imports, reindexing, maintenance). */
  databaseJobQueryTimeoutMs: number;
  /** A session idle inside an open transaction this long is ended by the server. */
  databaseIdleInTransactionTimeoutMs: number;
  /** How long /ready's database check may take before it answers 503. */
  readyTimeoutMs: number;
  /** How long start-up waits for an unreachable database before giving up (0: forever). */
  databaseStartTimeoutSec: number;
  filesDir: string;
  /** Where uploaded files live: `local` (filesDir) or `s3` (an S3-compatible bucket, settings below). */
  fileStorage: 'local' | 's3';
  /** With `s3`: a file missing from the bucket is read from filesDir (while moving an instance to the bucket). */
  fileStorageReadFallback: boolean;
  s3: S3Settings;
  publicUrl: string;
  sessionTtlDays: number;
  /** log2 of scrypt's N for new password hashes (17 = OWASP's recommendation). */
  passwordHashCost: number;
  trialDays: number;
  trialUsers: number;
  bodyLimitBytes: number;
  fileLimitBytes: number;
  imageLimitBytes: number;
  authRateLimitPerMinute: number;
  apiRateLimitPerMinute: number;
  /** Redis for rate-limit counters shared by every instance (REDIS_URL); unset, PostgreSQL holds them (or memory on PGlite). */
  redisUrl: string | null;
  /** Prefix of every Redis key the service writes (several deployments may share one Redis). */
  redisKeyPrefix: string;
  /** How long an `Idempotency-Key`'s answer is kept for replay. */
  idempotencyTtlHours: number;
  /** Prefix of the shared rate-limit keys; tests give each app its own, so parallel files on one database do not share limits. */
  rateLimitNamespace: string;
  /** Emails of service operators (may read reviews). */
  operatorEmails: string[];
  /** Run periodic jobs (due dates, webhook deliveries, event pruning) in this process. */
  jobsEnabled: boolean;
  /** How long real-time clients can resume from a past event id. */
  eventsReplayMinutes: number;
  /** How long the change log keeps events (webhook deliveries and notifications refer to them). */
  eventsRetentionDays: number;
  /** Interval of real-time heartbeats (WebSocket ping, SSE comment). */
  realtimeHeartbeatMs: number;
  /** A real-time client with more than this many bytes not yet sent is disconnected. */
  realtimeMaxBufferedBytes: number;
  /**
   * Hosts (names or IPs, as written in the URL) every outbound call (webhooks, LLM providers, other
   * integrations) may target although local or private, and over http: OUTBOUND_ALLOWED_HOSTS
   * together with its older alias WEBHOOK_ALLOWED_HOSTS.
   */
  outboundAllowedHosts: string[];
  /** WEBHOOK_ALLOWED_HOSTS alone (kept for compatibility; webhooks honour both lists). */
  webhookAllowedHosts: string[];
  /** Base64 of the 32-byte key that encrypts stored secrets (AES-256-GCM); see platform/secrets.ts. */
  secretsKey: string | null;
  /** An LLM provider call that has not answered within this time failed. */
  aiTimeoutMs: number;
  /** Longest wait a provider's retry-after may ask for before the one retry (longer: fail at once). */
  aiMaxRetryAfterMs: number;
  /** Memory the in-memory vector ranking may hold, all organizations together. */
  aiVectorCacheBytes: number;
  /** A webhook attempt that has not answered 2xx within this time failed. */
  webhookTimeoutMs: number;
  /** Waits before each retry of a failed delivery; once all are spent the delivery failed. */
  webhookRetrySchedule: number[];
  /** How often the sender looks for due retries (commits wake it at once). */
  webhookPollMs: number;
  /** Deliveries one instance sends at the same time. */
  webhookConcurrency: number;
  /** How often queued automation runs are looked for (commits on this instance wake the engine at once). */
  automationPollMs: number;
  /** How often schedule and due-date triggers are checked. */
  automationTickMs: number;
  /** Origins allowed to call the API from a browser (CORS_ORIGINS, comma-separated; `*` any). */
  corsOrigins: string[];
  /** Which proxies' X-Forwarded-For to believe for the client address (TRUST_PROXY). */
  trustProxy: boolean | number | string[];
  /** Who may register: anyone, only with an invite link, or nobody (SIGNUP_MODE). */
  signupMode: 'open' | 'invite-only' | 'closed';
  /** The Telegram bot's token: set, the messenger integration is on (TELEGRAM_BOT_TOKEN). */
  telegramBotToken: string | null;
  /** Where the Bot API is: the client calls `{telegramApiUrl}/bot{token}/{method}`. */
  telegramApiUrl: string;
  /** How long one getUpdates waits for updates (long polling). */
  telegramPollTimeoutSec: number;
  /** The shared secret of POST /integrations/messenger/bot-login (a bot run elsewhere); unset, that route is off. */
  messengerBotSecret: string | null;
  /** How often queued messenger messages are looked for (commits on this instance wake the sender at once). */
  messengerPollMs: number;
  /** The OAuth client of the cloud drive (CLOUD_DRIVE_CLIENT_ID, …_SECRET): both set, the integration is on. */
  cloudDriveClientId: string | null;
  cloudDriveClientSecret: string | null;
  /** The provider's authorization, token and revocation endpoints (Google's by default). */
  cloudDriveAuthUrl: string;
  cloudDriveTokenUrl: string;
  cloudDriveRevokeUrl: string;
  /** The Drive v3 REST API's base: `{url}/drive/v3/files`, `{url}/drive/v3/about`, `{url}/upload/drive/v3/files`. */
  cloudDriveApiUrl: string;
  /** The OAuth redirect URI registered with the provider (default `{PUBLIC_URL}/integrations/cloud-drive/callback`). */
  cloudDriveRedirectUri: string;
  /** Where the browser is sent after an authorization (the web app; default PUBLIC_URL). */
  appUrl: string;
  /** Keep hot read answers and resolved credentials in memory, dropped by any change in their organization. */
  readCache: boolean;
  /** Memory the read cache may hold, answers and credentials together. */
  readCacheMaxBytes: number;
  /** Bearer token GET /metrics asks for (METRICS_TOKEN); unset, the metrics are open to anyone who reaches the port. */
  metricsToken: string | null;
  /** Applied by tests: skip migrations because the database image is already migrated. */
  skipMigrations: boolean;
}

class ConfigError extends Error {}

/** TRUST_PROXY: `true` (every hop), a number of hops, or addresses/CIDRs of the proxies; unset = none. */
function parseTrustProxy(raw: string | undefined): boolean | number | string[] {
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw.split(',').map((s) => s.trim()).filter(Boolean);
}

function signupMode(raw: string | undefined): Config['signupMode'] {
  const mode = raw || 'open';
  if (mode !== 'open' && mode !== 'invite-only' && mode !== 'closed') throw new ConfigError(`SIGNUP_MODE must be open, invite-only or closed (got "${mode}")`);
  return mode;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A comma-separated list of durations: `1m,5m,1h` (units ms, s, m, h; none = milliseconds). */
function durations(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  return raw.split(',').map((part) => {
    const m = /^\s*(\d+)\s*(ms|s|m|h)?\s*$/.exec(part);
    if (!m) throw new ConfigError(`${name} must be durations like 1m,5m,1h, got "${raw}"`);
    return Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!;
  });
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/** A comma-separated host list, as the outbound guard compares hosts: lowercase, IPv6 without brackets. */
const parseHostList = (raw: string | undefined): string[] =>
  (raw || '').split(',').map((h) => h.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1')).filter(Boolean);

/** An absolute http(s) URL, or the default: a typo stops the start instead of failing the first call. */
function urlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  return raw;
}

/** SECRETS_KEY must be base64 of exactly 32 bytes (an AES-256 key): a wrong one stops the start. */
function secretsKey(env: NodeJS.ProcessEnv): string | null {
  const raw = env.SECRETS_KEY?.trim();
  if (!raw) return null;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) || Buffer.from(raw, 'base64').length !== 32) {
    throw new ConfigError('SECRETS_KEY must be base64 of 32 random bytes (e.g. `openssl rand -base64 32`)');
  }
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const port = int(env, 'PORT', 3000, 0);
  const dataDir = env.DATA_DIR || './data';
  const config: Config = {
    env: nodeEnv,
    host: env.HOST || '0.0.0.0',
    port,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    dataDir,
    databaseUrl: env.DATABASE_URL || null,
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1),
    databaseDirectUrl: env.DATABASE_DIRECT_URL || null,
    databasePreparedStatements: (env.DATABASE_PREPARED_STATEMENTS ?? 'true') !== 'false',
    databaseConnectTimeoutMs: int(env, 'DATABASE_CONNECT_TIMEOUT_MS', 5000, 100),
    databaseQueryTimeoutMs: int(env, 'DATABASE_QUERY_TIMEOUT_MS', 8000, 100),
    databaseJobQueryTimeoutMs: int(env, 'DATABASE_JOB_QUERY_TIMEOUT_MS', 600_000, 100),
    databaseIdleInTransactionTimeoutMs: int(env, 'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', 60_000, 100),
    readyTimeoutMs: int(env, 'READY_TIMEOUT_MS', 1500, 50),
    databaseStartTimeoutSec: int(env, 'DATABASE_START_TIMEOUT_S', 0, 0),
    filesDir: env.FILES_DIR || (dataDir.startsWith('memory://') ? path.join('data', 'files') : path.join(dataDir, 'files')),
    fileStorage: fileStorage(env.FILE_STORAGE),
    fileStorageReadFallback: (env.FILE_STORAGE_READ_FALLBACK ?? 'false') === 'true',
    s3: s3Settings(env, fileStorage(env.FILE_STORAGE) === 's3'),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    sessionTtlDays: int(env, 'SESSION_TTL_DAYS', 30, 1),
    passwordHashCost: int(env, 'PASSWORD_HASH_COST', 17, 10),
    trialDays: int(env, 'TRIAL_DAYS', 14, 0),
    trialUsers: int(env, 'TRIAL_USERS', 10, 1),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024),
    fileLimitBytes: int(env, 'FILE_LIMIT_BYTES', 50 * 1024 * 1024, 1024),
    imageLimitBytes: int(env, 'IMAGE_LIMIT_BYTES', 10 * 1024 * 1024, 1024),
    authRateLimitPerMinute: int(env, 'AUTH_RATE_LIMIT_PER_MINUTE', 20, 1),
    apiRateLimitPerMinute: int(env, 'API_RATE_LIMIT_PER_MINUTE', 6000, 1),
    redisUrl: env.REDIS_URL || null,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? 'workboard:',
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1),
    rateLimitNamespace: '',
    operatorEmails: (env.OPERATOR_EMAILS || '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean),
    jobsEnabled: (env.JOBS_ENABLED ?? 'true') !== 'false',
    eventsReplayMinutes: int(env, 'EVENTS_REPLAY_MINUTES', 10, 1),
    eventsRetentionDays: int(env, 'EVENTS_RETENTION_DAYS', 30, 1),
    realtimeHeartbeatMs: int(env, 'REALTIME_HEARTBEAT_MS', 25_000, 100),
    realtimeMaxBufferedBytes: int(env, 'REALTIME_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 1024),
    outboundAllowedHosts: [...new Set([...parseHostList(env.OUTBOUND_ALLOWED_HOSTS), ...parseHostList(env.WEBHOOK_ALLOWED_HOSTS)])],
    webhookAllowedHosts: parseHostList(env.WEBHOOK_ALLOWED_HOSTS),
    secretsKey: secretsKey(env),
    aiTimeoutMs: int(env, 'AI_TIMEOUT_MS', 60_000, 100),
    aiMaxRetryAfterMs: int(env, 'AI_MAX_RETRY_AFTER_MS', 10_000, 0),
    aiVectorCacheBytes: int(env, 'AI_VECTOR_CACHE_MB', 256, 1) * 1024 * 1024,
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100),
    // 8 retries over about a day (routes.md): 1m, 5m, 15m, 1h, 2h, 4h, 8h, 8h.
    webhookRetrySchedule: durations(env, 'WEBHOOK_RETRY_SCHEDULE', [1, 5, 15, 60, 120, 240, 480, 480].map((m) => m * 60_000)),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 1000, 10),
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 10, 1),
    automationPollMs: int(env, 'AUTOMATION_POLL_MS', 1000, 10),
    automationTickMs: int(env, 'AUTOMATION_TICK_MS', 15_000, 50),
    corsOrigins: (env.CORS_ORIGINS || '').split(',').map((o) => o.trim().replace(/\/$/, '')).filter(Boolean),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    signupMode: signupMode(env.SIGNUP_MODE),
    telegramBotToken: env.TELEGRAM_BOT_TOKEN || null,
    telegramApiUrl: (env.TELEGRAM_API_URL || 'https://api.telegram.org').replace(/\/$/, ''),
    telegramPollTimeoutSec: int(env, 'TELEGRAM_POLL_TIMEOUT_S', 25, 0),
    messengerBotSecret: env.MESSENGER_BOT_SECRET || null,
    messengerPollMs: int(env, 'MESSENGER_POLL_MS', 1000, 10),
    cloudDriveClientId: env.CLOUD_DRIVE_CLIENT_ID || null,
    cloudDriveClientSecret: env.CLOUD_DRIVE_CLIENT_SECRET || null,
    cloudDriveAuthUrl: urlSetting(env, 'CLOUD_DRIVE_AUTH_URL', 'https://accounts.google.com/o/oauth2/v2/auth'),
    cloudDriveTokenUrl: urlSetting(env, 'CLOUD_DRIVE_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
    cloudDriveRevokeUrl: urlSetting(env, 'CLOUD_DRIVE_REVOKE_URL', 'https://oauth2.googleapis.com/revoke'),
    cloudDriveApiUrl: urlSetting(env, 'CLOUD_DRIVE_API_URL', 'https://www.googleapis.com').replace(/\/$/, ''),
    // Empty: derived from PUBLIC_URL below, after overrides, so a test's PUBLIC_URL carries through.
    cloudDriveRedirectUri: urlSetting(env, 'CLOUD_DRIVE_REDIRECT_URI', ''),
    appUrl: urlSetting(env, 'APP_URL', '').replace(/\/$/, ''),
    readCache: (env.READ_CACHE ?? 'true') !== 'false',
    readCacheMaxBytes: int(env, 'READ_CACHE_MAX_MB', 64, 1) * 1024 * 1024,
    metricsToken: env.METRICS_TOKEN || null,
    skipMigrations: false,
    ...overrides,
  };
  config.cloudDriveRedirectUri ||= `${config.publicUrl}/integrations/cloud-drive/callback`;
  config.appUrl ||= config.publicUrl;
  return config;
}
