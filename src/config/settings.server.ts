import { Invalid, bool, bounded, connectionUrl, custom, int, isHttpUrl, list, oneOf, text, trustProxy } from './setting.js';

/**
 * The embedded database is the small server's setup (one process, one machine): its memory
 * defaults bound the peak under load (issue 42). `npm start` reads the same value (package.json).
 */
export const EMBEDDED_YOUNG_GENERATION_MB = 16;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The process, HTTP and the people allowed in. */
export const SERVER_SETTINGS = {
  NODE_ENV: oneOf('`production`, `development` or `test`; `test` silences the log by default', ['development', 'production', 'test'], 'development'),
  HOST: text('listen address', '0.0.0.0'),
  PORT: int('HTTP port', 3000, 0, { max: 65_535 }),
  LOG_LEVEL: custom('pino level: `fatal` `error` `warn` `info` `debug` `trace` `silent`', 'info', (raw, env) => {
    if (raw === undefined) return env.NODE_ENV === 'test' ? 'silent' : 'info';
    if (!(LOG_LEVELS as readonly string[]).includes(raw)) throw new Invalid(LOG_LEVELS.join(', '));
    return raw;
  }, { default: '`info` (`silent` with `NODE_ENV=test`)' }),
  PUBLIC_URL: custom('the address clients reach the service at (links, OpenAPI `servers`, OAuth callbacks); behind a proxy, the proxy\'s public https address', '', (raw) => {
    if (raw !== undefined && !isHttpUrl(raw)) throw new Invalid('an absolute http(s) URL');
    return raw?.replace(/\/$/, '') ?? null;
  }, { default: '`http://localhost:$PORT`' }),
  TRUST_PROXY: custom('behind a reverse proxy: `true`, a number of hops, or the proxies\' addresses/CIDRs; client addresses (rate limits, logs) then come from `X-Forwarded-For`', '—', trustProxy),
  CORS_ORIGINS: list('origins a browser may call the API from (comma-separated, `*` for any); unset, no cross-origin reads', (o) => o.replace(/\/$/, ''), (o) =>
    o === '*' || isHttpUrl(o) ? null : 'origins like https://board.example (or *), comma-separated'),
  BODY_LIMIT_BYTES: int('largest JSON body', 1024 * 1024, 1024),
  FILE_LIMIT_BYTES: int('largest uploaded file (a proxy in front must allow it too)', 50 * 1024 * 1024, 1024),
  IMAGE_LIMIT_BYTES: int('largest avatar, cover or background image', 10 * 1024 * 1024, 1024),
  AUTH_RATE_LIMIT_PER_MINUTE: int('per client address, per minute: sign-in and registration requests, and requests with a missing or unknown credential (past it they are refused with 429 before any lookup)', 20, 1),
  API_RATE_LIMIT_PER_MINUTE: int('requests per credential (per IP without one)', 6000, 1),
  REDIS_URL: connectionUrl(
    'Redis holding the rate-limit counters, shared by every instance (unreachable at start: the start fails); unset, PostgreSQL holds them (table `rate_limits`), or memory on the embedded database',
    ['redis:', 'rediss:'],
  ),
  REDIS_KEY_PREFIX: custom('prefix of every Redis key the service writes (several deployments may share one Redis)', 'workboard:', (raw) => raw ?? 'workboard:'),
  IDEMPOTENCY_TTL_HOURS: int('how long a POST\'s `Idempotency-Key` keeps its answer for replay', 24, 1),
  SESSION_TTL_DAYS: int('session lifetime; each use extends it (sliding)', 30, 1),
  PASSWORD_HASH_COST: int('log2 of scrypt\'s N for new password hashes', 17, 10),
  SIGNUP_MODE: oneOf('`open`: anyone registers; `invite-only`: only with an invite link; `closed`: nobody (403 `SIGNUP_CLOSED`)', ['open', 'invite-only', 'closed'], 'open'),
  OPERATOR_EMAILS: list('comma-separated emails of service operators (may read `GET /reviews`)', (e) => e.toLowerCase()),
  TRIAL_DAYS: int('trial licence length of a new organization', 14, 0),
  TRIAL_USERS: int('seats (`availableUsersCount`) of a trial licence', 10, 1),
  SECRETS_KEY: custom(
    'base64 of 32 random bytes (`openssl rand -base64 32`): the AES-256-GCM key of stored secrets (LLM API keys, integration tokens); on PostgreSQL set it, the same on every instance',
    '',
    (raw) => {
      if (raw === undefined) return null;
      if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) || Buffer.from(raw, 'base64').length !== 32) throw new Invalid('base64 of 32 random bytes (`openssl rand -base64 32`)');
      return raw;
    },
    { secret: true, default: 'generated in `$DATA_DIR/secrets.key` (embedded database only)' },
  ),
  METRICS_TOKEN: text('bearer token `GET /metrics` asks for; unset, the metrics are open to anyone who reaches the port', null, { secret: true }),
  YOUNG_GENERATION_MB: custom(
    'V8\'s young generation, read by `npm start` (elsewhere: `node --max-semi-space-size=<half of it>`); 0 leaves V8\'s own (at most 32 MB, grown and shrunk with the load). The embedded database\'s default, 16, keeps the peak under load small for a few percent more CPU on writes; 128 serves a 1,000-task board with about a third less CPU, for about 100 MB more resident memory: a choice for a machine with memory to spare (docs/performance.md, issue 42)',
    '',
    (raw, env) => (raw === undefined ? (env.DATABASE_URL?.trim() ? 0 : EMBEDDED_YOUNG_GENERATION_MB) : bounded(raw, 0, 4096)),
    { default: '`16` on the embedded database, `0` on PostgreSQL' },
  ),
  HEAP_GROWTH_PERCENT: custom(
    'how far V8 lets its old generation grow past what the last full collection kept alive, in percent; 0 leaves V8\'s own factor (up to 300 % on a machine with memory to spare, so a busy server\'s heap fills with garbage it has no reason to collect yet). A small value bounds the peak under load for more frequent collections: it is a soft bound, never a crash, so a large export still gets the memory it needs (docs/performance.md, issue 42)',
    '',
    (raw, env) => (raw === undefined ? (env.DATABASE_URL?.trim() ? 100 : 25) : bounded(raw, 0, 400)),
    { default: '`25` on the embedded database, `100` on PostgreSQL' },
  ),
  MCP_ENABLED: bool('serve the Model Context Protocol endpoint `/mcp` (AI agents acting as their user; organization admins may still turn it off for theirs)', true),
  READ_CACHE: bool('keep hot reads and resolved credentials in memory, dropped by any change in their organization (other instances: when its NOTIFY arrives); `false` for strict read-your-writes across instances', true),
  READ_CACHE_MAX_MB: int('memory the read cache may hold', 64, 1),
};
