import { Invalid, bool, connectionUrl, custom, httpUrl, int, oneOf, text } from './setting.js';

const POSTGRES = ['postgres:', 'postgresql:'];

/** Where the data lives: the database and the uploaded files. */
export const STORAGE_SETTINGS = {
  DATA_DIR: text('PGlite data directory (the embedded database); `memory://` keeps everything in memory', './data'),
  DATABASE_URL: connectionUrl('PostgreSQL connection string; set, the service uses a pool instead of PGlite', POSTGRES),
  DATABASE_POOL_SIZE: int('PostgreSQL pool size, per instance', 10, 1),
  DATABASE_DIRECT_URL: connectionUrl(
    'a direct connection (a session of its own) for LISTEN/NOTIFY and migrations, when `DATABASE_URL` goes through a pooler in transaction mode (PgBouncer); unset, `DATABASE_URL` itself',
    POSTGRES,
  ),
  DATABASE_PREPARED_STATEMENTS: bool('named (server-side prepared) statements and per-session settings at connect (`statement_timeout`, `jit=off`); `false` behind a pooler in transaction mode (PgBouncer before 1.21): statements go unnamed and the settings are left to the role (see "Behind PgBouncer")', true),
  DATABASE_CONNECT_TIMEOUT_MS: int('longest wait for a pooled connection, or for a new one to connect', 5000, 100),
  DATABASE_QUERY_TIMEOUT_MS: int('one statement\'s limit, on the server (`statement_timeout`) and in the client (a stalled network)', 8000, 100),
  DATABASE_JOB_QUERY_TIMEOUT_MS: int('the statement limit of long background work (exports, imports, reindexing, maintenance)', 600_000, 100),
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: int('a session idle inside an open transaction this long is ended by the server', 60_000, 100),
  READY_TIMEOUT_MS: int('how long `GET /ready`\'s database check may take before it answers 503', 1500, 50),
  DATABASE_EMBEDDED_OPTIMIZING_COMPILER: bool('compile the embedded database (PGlite\'s WebAssembly) with V8\'s optimizing tier as well as its baseline one (Liftoff): warm queries run faster, at 40–60 MB more resident memory and more CPU to open the database (a bare open 2.4 s against 1.1; a fresh data directory\'s initdb and migrations 6.1 s of CPU against 4.9); `false` suits a small server (docs/performance.md, issue 42)', false),
  DATABASE_START_TIMEOUT_S: int('how long start-up waits for an unreachable database before giving up (0: forever)', 0, 0),
  FILES_DIR: text('where uploaded files are stored with `FILE_STORAGE=local`', null, { default: '`$DATA_DIR/files` (`./data/files` for `memory://`)' }),
  FILE_STORAGE: oneOf('`local` keeps uploads in `FILES_DIR`; `s3` in an S3-compatible bucket (AWS S3, MinIO, R2, B2, Garage), which every instance shares', ['local', 's3'], 'local'),
  FILE_STORAGE_READ_FALLBACK: bool('with `FILE_STORAGE=s3`, a file missing from the bucket is read from `FILES_DIR` (only while moving an instance to the bucket)', false),
  S3_ENDPOINT: httpUrl('the server\'s URL, e.g. `https://minio.internal:9000`; unset, AWS S3 in `S3_REGION`', null, { default: '— (AWS)' }),
  S3_REGION: text('the bucket\'s region (`auto` for R2)', 'us-east-1'),
  S3_BUCKET: custom('the bucket; required with `FILE_STORAGE=s3`', '—', (raw, env) => {
    if (raw === undefined && env.FILE_STORAGE?.trim().toLowerCase() === 's3') throw new Invalid('set with FILE_STORAGE=s3');
    return raw ?? '';
  }),
  S3_ACCESS_KEY_ID: text('the access key\'s id; unset, the AWS SDK\'s own chain applies (environment, instance role, …)', null),
  S3_SECRET_ACCESS_KEY: text('the access key\'s secret', null, { secret: true }),
  S3_FORCE_PATH_STYLE: bool('address the bucket in the path (`host/bucket/key`), as MinIO, Garage and most self-hosted servers need', false),
  S3_PREFIX: custom('prepended to every object key (`workboard/`), so several deployments can share a bucket', '—', (raw) => {
    const prefix = (raw ?? '').replace(/^\/+/, '');
    return prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix;
  }),
};
