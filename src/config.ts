import path from 'node:path';
import { ConfigError, readSettings } from './config/setting.js';
import { SETTINGS, unknownVariableWarnings } from './config/settings.js';
import type { OidcRole } from './config/settings.sso.js';

export { ConfigError } from './config/setting.js';

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

/** Every setting the service reads from the environment, validated once at start. */
/** Outgoing email; see config/settings.email.ts. */
export interface EmailConfig {
  smtpUrl: string | null;
  from: string;
  dkim: { domainName: string; keySelector: string; privateKey: string } | null;
  timeoutMs: number;
  retrySchedule: number[];
  pollMs: number;
  concurrency: number;
}

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
  /** PGlite's WebAssembly compiled by V8's optimizing tier too (DATABASE_EMBEDDED_OPTIMIZING_COMPILER); otherwise Liftoff's code only. */
  embeddedOptimizingCompiler: boolean;
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
  /** Outgoing email (SMTP_*, EMAIL_*); `smtpUrl` null: email is off. */
  email: EmailConfig;
  /** Origins allowed to call the API from a browser (CORS_ORIGINS, comma-separated; `*` any). */
  corsOrigins: string[];
  /** Serve the MCP endpoint /mcp (MCP_ENABLED). */
  mcpEnabled: boolean;
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
  /** Single sign-on: issuer, client id and secret all set, it is on (OIDC_*). */
  oidcIssuer: string | null;
  oidcClientId: string | null;
  oidcClientSecret: string | null;
  oidcScopes: string;
  oidcDisplayName: string;
  /** The web client's page the provider redirects to (default `{PUBLIC_URL}/app/auth/oidc/callback`). */
  oidcRedirectUri: string;
  oidcPostLogoutRedirectUri: string;
  /** Email domains new accounts may be created for; empty: any. */
  oidcAllowedDomains: string[];
  oidcRoleClaim: string | null;
  oidcRoleMapping: Record<string, OidcRole>;
  /** The organization new single sign-on users join; null: each gets their own. */
  oidcOrganizationId: number | null;
  /** Password sign-in and registration off for everyone but operators. */
  oidcOnly: boolean;
  /** Keep hot read answers and resolved credentials in memory, dropped by any change in their organization. */
  readCache: boolean;
  /** Memory the read cache may hold, answers and credentials together. */
  readCacheMaxBytes: number;
  /** V8's heap growing factor past the live heap, in percent (HEAP_GROWTH_PERCENT); 0: V8's own. */
  heapGrowthPercent: number;
  /** Bearer token GET /metrics asks for (METRICS_TOKEN); unset, the metrics are open to anyone who reaches the port. */
  metricsToken: string | null;
  /** Applied by tests: skip migrations because the database image is already migrated. */
  skipMigrations: boolean;
}

/**
 * The configuration from the environment, each variable read by its entry in config/settings*.ts.
 * Throws a ConfigError listing every invalid variable; `overrides` (tests, scripts) win over both.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const v = readSettings(SETTINGS, env);
  const config: Config = {
    env: v.NODE_ENV,
    host: v.HOST,
    port: v.PORT,
    logLevel: v.LOG_LEVEL,
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    embeddedOptimizingCompiler: v.DATABASE_EMBEDDED_OPTIMIZING_COMPILER,
    databaseDirectUrl: v.DATABASE_DIRECT_URL,
    databasePreparedStatements: v.DATABASE_PREPARED_STATEMENTS,
    databaseConnectTimeoutMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    databaseQueryTimeoutMs: v.DATABASE_QUERY_TIMEOUT_MS,
    databaseJobQueryTimeoutMs: v.DATABASE_JOB_QUERY_TIMEOUT_MS,
    databaseIdleInTransactionTimeoutMs: v.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    readyTimeoutMs: v.READY_TIMEOUT_MS,
    databaseStartTimeoutSec: v.DATABASE_START_TIMEOUT_S,
    filesDir: v.FILES_DIR ?? (v.DATA_DIR.startsWith('memory://') ? path.join('data', 'files') : path.join(v.DATA_DIR, 'files')),
    fileStorage: v.FILE_STORAGE,
    fileStorageReadFallback: v.FILE_STORAGE_READ_FALLBACK,
    s3: {
      endpoint: v.S3_ENDPOINT,
      region: v.S3_REGION,
      bucket: v.S3_BUCKET,
      accessKeyId: v.S3_ACCESS_KEY_ID,
      secretAccessKey: v.S3_SECRET_ACCESS_KEY,
      forcePathStyle: v.S3_FORCE_PATH_STYLE,
      prefix: v.S3_PREFIX,
    },
    publicUrl: v.PUBLIC_URL ?? `http://localhost:${v.PORT}`,
    sessionTtlDays: v.SESSION_TTL_DAYS,
    passwordHashCost: v.PASSWORD_HASH_COST,
    trialDays: v.TRIAL_DAYS,
    trialUsers: v.TRIAL_USERS,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    fileLimitBytes: v.FILE_LIMIT_BYTES,
    imageLimitBytes: v.IMAGE_LIMIT_BYTES,
    authRateLimitPerMinute: v.AUTH_RATE_LIMIT_PER_MINUTE,
    apiRateLimitPerMinute: v.API_RATE_LIMIT_PER_MINUTE,
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    idempotencyTtlHours: v.IDEMPOTENCY_TTL_HOURS,
    rateLimitNamespace: '',
    operatorEmails: v.OPERATOR_EMAILS,
    jobsEnabled: v.JOBS_ENABLED,
    eventsReplayMinutes: v.EVENTS_REPLAY_MINUTES,
    eventsRetentionDays: v.EVENTS_RETENTION_DAYS,
    realtimeHeartbeatMs: v.REALTIME_HEARTBEAT_MS,
    realtimeMaxBufferedBytes: v.REALTIME_MAX_BUFFERED_BYTES,
    outboundAllowedHosts: [...new Set([...v.OUTBOUND_ALLOWED_HOSTS, ...v.WEBHOOK_ALLOWED_HOSTS])],
    webhookAllowedHosts: v.WEBHOOK_ALLOWED_HOSTS,
    secretsKey: v.SECRETS_KEY,
    aiTimeoutMs: v.AI_TIMEOUT_MS,
    aiMaxRetryAfterMs: v.AI_MAX_RETRY_AFTER_MS,
    aiVectorCacheBytes: v.AI_VECTOR_CACHE_MB * 1024 * 1024,
    webhookTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
    webhookRetrySchedule: v.WEBHOOK_RETRY_SCHEDULE,
    webhookPollMs: v.WEBHOOK_POLL_MS,
    webhookConcurrency: v.WEBHOOK_CONCURRENCY,
    automationPollMs: v.AUTOMATION_POLL_MS,
    automationTickMs: v.AUTOMATION_TICK_MS,
    email: {
      smtpUrl: v.SMTP_URL,
      from: v.SMTP_FROM ?? `Workboard <noreply@${new URL(v.PUBLIC_URL ?? 'http://localhost').hostname}>`,
      dkim: v.SMTP_DKIM_DOMAIN && v.SMTP_DKIM_SELECTOR && v.SMTP_DKIM_PRIVATE_KEY
        ? { domainName: v.SMTP_DKIM_DOMAIN, keySelector: v.SMTP_DKIM_SELECTOR, privateKey: v.SMTP_DKIM_PRIVATE_KEY.replace(/\\n/g, '\n') }
        : null,
      timeoutMs: v.EMAIL_TIMEOUT_MS,
      retrySchedule: v.EMAIL_RETRY_SCHEDULE,
      pollMs: v.EMAIL_POLL_MS,
      concurrency: v.EMAIL_CONCURRENCY,
    },
    corsOrigins: v.CORS_ORIGINS,
    mcpEnabled: v.MCP_ENABLED,
    trustProxy: v.TRUST_PROXY,
    signupMode: v.SIGNUP_MODE,
    telegramBotToken: v.TELEGRAM_BOT_TOKEN,
    telegramApiUrl: v.TELEGRAM_API_URL.replace(/\/$/, ''),
    telegramPollTimeoutSec: v.TELEGRAM_POLL_TIMEOUT_S,
    messengerBotSecret: v.MESSENGER_BOT_SECRET,
    messengerPollMs: v.MESSENGER_POLL_MS,
    cloudDriveClientId: v.CLOUD_DRIVE_CLIENT_ID,
    cloudDriveClientSecret: v.CLOUD_DRIVE_CLIENT_SECRET,
    cloudDriveAuthUrl: v.CLOUD_DRIVE_AUTH_URL,
    cloudDriveTokenUrl: v.CLOUD_DRIVE_TOKEN_URL,
    cloudDriveRevokeUrl: v.CLOUD_DRIVE_REVOKE_URL,
    cloudDriveApiUrl: v.CLOUD_DRIVE_API_URL.replace(/\/$/, ''),
    // Empty: derived from PUBLIC_URL below, after overrides, so a test's PUBLIC_URL carries through.
    cloudDriveRedirectUri: v.CLOUD_DRIVE_REDIRECT_URI ?? '',
    appUrl: (v.APP_URL ?? '').replace(/\/$/, ''),
    oidcIssuer: v.OIDC_ISSUER,
    oidcClientId: v.OIDC_CLIENT_ID,
    oidcClientSecret: v.OIDC_CLIENT_SECRET,
    oidcScopes: v.OIDC_SCOPES,
    oidcDisplayName: v.OIDC_DISPLAY_NAME,
    // Empty: derived from PUBLIC_URL below, after overrides.
    oidcRedirectUri: v.OIDC_REDIRECT_URI ?? '',
    oidcPostLogoutRedirectUri: v.OIDC_POST_LOGOUT_REDIRECT_URI ?? '',
    oidcAllowedDomains: v.OIDC_ALLOWED_DOMAINS,
    oidcRoleClaim: v.OIDC_ROLE_CLAIM,
    oidcRoleMapping: v.OIDC_ROLE_MAPPING,
    oidcOrganizationId: v.OIDC_ORGANIZATION_ID,
    oidcOnly: v.OIDC_ONLY,
    readCache: v.READ_CACHE,
    readCacheMaxBytes: v.READ_CACHE_MAX_MB * 1024 * 1024,
    heapGrowthPercent: v.HEAP_GROWTH_PERCENT,
    metricsToken: v.METRICS_TOKEN,
    skipMigrations: false,
    ...overrides,
  };
  config.cloudDriveRedirectUri ||= `${config.publicUrl}/integrations/cloud-drive/callback`;
  config.appUrl ||= config.publicUrl;
  // The web client this service serves (under /app/) completes the sign-in.
  config.oidcRedirectUri ||= `${config.publicUrl}/app/auth/oidc/callback`;
  config.oidcPostLogoutRedirectUri ||= `${config.publicUrl}/app/`;
  return config;
}

/** EX_CONFIG of sysexits.h: what supervisors (systemd, a container runtime) read as "fix the configuration". */
export const EX_CONFIG = 78;

/**
 * loadConfig for the service and its commands: a misspelt variable is warned about on stderr, and
 * an invalid value prints one line per variable and exits 78 with no stack trace (the operator's
 * mistake, not the program's).
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  for (const warning of unknownVariableWarnings(env)) process.stderr.write(`warning: ${warning}\n`);
  try {
    return loadConfig(env, overrides);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.lines.map((line) => `configuration: ${line}`).join('\n')}\n`);
    process.exit(EX_CONFIG);
  }
}
