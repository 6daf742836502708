import { bool, durations, httpUrl, int, list, text } from './setting.js';

/** A host as the outbound guard compares hosts: lowercase, IPv6 without brackets. */
const host = (h: string) => h.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** Real-time delivery, periodic jobs and the integrations that call out. */
export const BACKGROUND_SETTINGS = {
  JOBS_ENABLED: bool('run the periodic jobs in this process (due dates, webhook sender, event pruning); several processes may all run them', true),
  EVENTS_REPLAY_MINUTES: int('how far back a real-time client can resume (`Last-Event-ID` / `resume`); older gets `resync`', 10, 1),
  EVENTS_RETENTION_DAYS: int('how long the change log keeps events', 30, 1),
  REALTIME_HEARTBEAT_MS: int('WebSocket ping / SSE heartbeat interval (a proxy\'s read timeout must be longer); also how often live connections are re-checked', 25_000, 100),
  REALTIME_MAX_BUFFERED_BYTES: int('a real-time client with more unsent bytes than this is disconnected (it resumes on reconnect)', 4 * 1024 * 1024, 1024),
  OUTBOUND_ALLOWED_HOSTS: list('comma-separated hosts every outbound call (webhooks, LLM providers, integrations) may target although loopback/private, and over http', host),
  WEBHOOK_ALLOWED_HOSTS: list('older alias of `OUTBOUND_ALLOWED_HOSTS` (both lists apply)', host),
  WEBHOOK_TIMEOUT_MS: int('a delivery attempt without a 2xx answer within this time failed', 10_000, 100),
  // 8 retries over about a day (routes.md).
  WEBHOOK_RETRY_SCHEDULE: durations('waits before each retry (ms/s/m/h); when all are spent the delivery failed and the webhook is disabled', '1m,5m,15m,1h,2h,4h,8h,8h'),
  WEBHOOK_POLL_MS: int('how often the sender looks for due retries (commits wake it at once)', 1000, 10),
  WEBHOOK_CONCURRENCY: int('deliveries one instance sends at the same time', 10, 1),
  AUTOMATION_POLL_MS: int('how often queued automation runs are looked for (commits wake the engine at once)', 1000, 10),
  AUTOMATION_TICK_MS: int('how often schedule and due-date triggers are checked', 15_000, 50),
  AI_TIMEOUT_MS: int('an LLM provider call without an answer within this time failed', 60_000, 100),
  AI_MAX_RETRY_AFTER_MS: int('longest `retry-after` of a provider\'s 429/5xx the one retry waits for; longer fails at once', 10_000, 0),
  AI_VECTOR_CACHE_MB: int('memory the assistant\'s in-memory vector ranking may hold, all organizations together', 256, 1),
  TELEGRAM_BOT_TOKEN: text('the bot\'s token from @BotFather; set, the messenger integration is on', null, { secret: true }),
  TELEGRAM_API_URL: httpUrl('the Bot API the client calls (`{url}/bot{token}/{method}`)', 'https://api.telegram.org'),
  TELEGRAM_POLL_TIMEOUT_S: int('how long one `getUpdates` long poll waits', 25, 0),
  MESSENGER_BOT_SECRET: text('the shared secret of `POST /integrations/messenger/bot-login` (a bot run elsewhere); unset, that route is off', null, { secret: true }),
  MESSENGER_POLL_MS: int('how often queued messenger messages are looked for (commits wake the sender at once)', 1000, 10),
  CLOUD_DRIVE_CLIENT_ID: text('the OAuth client id of the cloud drive (Google Drive); with the secret, the integration is on', null),
  CLOUD_DRIVE_CLIENT_SECRET: text('that client\'s secret (it also keys the HMAC of the OAuth `state`)', null, { secret: true }),
  CLOUD_DRIVE_AUTH_URL: httpUrl('the provider\'s authorization (consent) endpoint', 'https://accounts.google.com/o/oauth2/v2/auth'),
  CLOUD_DRIVE_TOKEN_URL: httpUrl('the token endpoint (code exchange, refresh)', 'https://oauth2.googleapis.com/token'),
  CLOUD_DRIVE_REVOKE_URL: httpUrl('the revocation endpoint (RFC 7009), called on disconnect', 'https://oauth2.googleapis.com/revoke'),
  CLOUD_DRIVE_API_URL: httpUrl('the Drive v3 REST API base', 'https://www.googleapis.com'),
  CLOUD_DRIVE_REDIRECT_URI: httpUrl('the redirect URI registered with the provider; it must reach this service\'s callback', null, {
    default: '`$PUBLIC_URL/integrations/cloud-drive/callback`',
  }),
  APP_URL: httpUrl('the web app: where the cloud-drive callback sends the browser afterwards', null, { default: '`$PUBLIC_URL`' }),
};
