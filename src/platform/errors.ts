import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { pgCode } from '../db/tx.js';
import { faultOf, isOutage, type FaultKind } from '../db/faults.js';

/**
 * The error catalogue: every code the service can answer with and its HTTP status.
 * Codes are stable once published; add new ones, never rename.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: 400,
  INVALID_JSON: 400,
  BAD_REQUEST: 400,
  DATE_RANGE: 400,
  STAGE_TASKS_LIMIT: 400,
  STAGE_NOT_EMPTY: 400,
  GROUP_NOT_EMPTY: 400,
  LAST_SPACE_ADMIN: 400,
  LINK_DISABLED: 400,
  NO_FREE_SEATS: 400,
  OWNER_PROTECTED: 400,
  MEMBER_DEACTIVATED: 400,
  TEST_REQUIRED: 400,
  INVALID_FILE: 400,
  WRONG_PASSWORD: 400,
  TWO_FACTOR_CODE_WRONG: 400,
  PASSKEY_CHALLENGE_EXPIRED: 400,
  PASSKEY_NOT_VERIFIED: 400,
  MALFORMED_MULTIPART: 400,
  REFERENCE_NOT_FOUND: 400,
  RESET_TOKEN_INVALID: 400,
  VERIFICATION_TOKEN_INVALID: 400,
  CONSTRAINT_VIOLATION: 400,
  WEBHOOK_URL_FORBIDDEN: 400,
  WEBHOOK_SECRET_INVALID: 400,
  OUTBOUND_URL_FORBIDDEN: 400,
  SECRETS_KEY_MISSING: 400,
  CLOUD_DRIVE_STATE_INVALID: 400,
  OIDC_STATE_INVALID: 400,
  ARCHIVE_INVALID: 400,
  ARCHIVE_UNSAFE: 400,
  ARCHIVE_CHECKSUM_MISMATCH: 400,
  ARCHIVE_VERSION_UNSUPPORTED: 400,
  UNAUTHENTICATED: 401,
  INVALID_CREDENTIALS: 401,
  ACCOUNT_DEACTIVATED: 401,
  SIGN_IN_CHALLENGE_EXPIRED: 401,
  OIDC_SIGN_IN_FAILED: 401,
  FORBIDDEN: 403,
  AI_DISABLED: 403,
  SIGNUP_CLOSED: 403,
  TWO_FACTOR_ENROLMENT_REQUIRED: 403,
  PASSWORD_SIGN_IN_DISABLED: 403,
  OIDC_EMAIL_UNVERIFIED: 403,
  OIDC_DOMAIN_NOT_ALLOWED: 403,
  TOKEN_READ_ONLY: 403,
  MCP_DISABLED: 403,
  INSUFFICIENT_SCOPE: 403,
  INVITATION_EMAIL_MISMATCH: 403,
  NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  CONFLICT: 409,
  EMAIL_TAKEN: 409,
  TWO_FACTOR_ALREADY_ENABLED: 409,
  TWO_FACTOR_NOT_ENABLED: 409,
  PASSKEY_ALREADY_REGISTERED: 409,
  STALE_VERSION: 409,
  INDEXING_RUNNING: 409,
  MESSENGER_NOT_CONFIGURED: 409,
  CLOUD_DRIVE_NOT_CONFIGURED: 409,
  OIDC_NOT_CONFIGURED: 409,
  EMAIL_NOT_CONFIGURED: 409,
  CLOUD_DRIVE_NOT_CONNECTED: 409,
  CLOUD_DRIVE_RECONNECT: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  EXPORT_NOT_READY: 409,
  INVITATION_ACCEPTED: 409,
  ALREADY_SPACE_MEMBER: 409,
  EXPORT_EXPIRED: 410,
  INVITATION_EXPIRED: 410,
  INVITATION_REVOKED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  AI_PROVIDER_FAILED: 502,
  MESSENGER_FAILED: 502,
  CLOUD_DRIVE_FAILED: 502,
  OIDC_PROVIDER_FAILED: 502,
  UNAVAILABLE: 503,
  STORAGE_UNAVAILABLE: 503,
  DATABASE_UNAVAILABLE: 503,
  STORAGE_FULL: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
  ) {
    super(message);
    this.status = ERROR_CODES[code];
  }
}

export const notFound = (what = 'resource') => new AppError('NOT_FOUND', `${what} not found`);
export const forbidden = (message = 'your role does not allow this action') => new AppError('FORBIDDEN', message);
export const badRequest = (code: ErrorCode, message: string) => new AppError(code, message);

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  /** Only catalogue codes: the document lists them as the enum of Problem.code. */
  code: ErrorCode;
  errors?: FieldError[];
  requestId: string;
}

function problem(request: FastifyRequest, status: number, code: ErrorCode, detail?: string, errors?: FieldError[]): Problem {
  const body: Problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, code, requestId: String(request.id) };
  if (detail !== undefined) body.detail = detail;
  if (errors?.length) body.errors = errors;
  return body;
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(body);
}

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * A nullable field that fails reports three issues: the real one, "must be null" from the null
 * branch, and "must match a schema in anyOf". The client needs only the first; the other two are
 * dropped when a more specific issue names the same place.
 */
function withoutUnionNoise(issues: AjvIssue[]): AjvIssue[] {
  const isNoise = (i: AjvIssue) => i.keyword === 'anyOf' || (i.keyword === 'type' && i.params?.type === 'null');
  const specific = new Set(issues.filter((i) => !isNoise(i)).map((i) => i.instancePath ?? ''));
  const kept = issues.filter((i) => !isNoise(i) || !specific.has(i.instancePath ?? ''));
  return kept.length ? kept : issues;
}

function validationErrors(issues: AjvIssue[], context: string | undefined): FieldError[] {
  return withoutUnionNoise(issues).map((issue) => {
    let p = issue.instancePath ?? '';
    // Ajv names a missing property in params, not in the path.
    if (issue.params && typeof issue.params.missingProperty === 'string') p += `/${issue.params.missingProperty}`;
    if (issue.params && typeof issue.params.additionalProperty === 'string') p += `/${issue.params.additionalProperty}`;
    const prefix = context && context !== 'body' ? `/${context}` : '';
    return { path: `${prefix}${p}` || '/', message: issue.message ?? 'is invalid' };
  });
}

/** Maps a database error (by SQLSTATE, never by message) to the catalogue. */
function fromDatabase(error: unknown): AppError | null {
  const code = pgCode(error);
  if (!code) return null;
  switch (code) {
    case '23505':
      return new AppError('CONFLICT', 'a resource with these values already exists');
    case '23503':
      return new AppError('REFERENCE_NOT_FOUND', 'a referenced resource does not exist');
    case '23514':
    case '23502':
      return new AppError('CONSTRAINT_VIOLATION', 'the values break a rule of the resource');
    case '40001':
    case '40P01':
      // Only reached once withTransaction's retries are spent.
      return new AppError('CONFLICT', 'a concurrent change got in the way; retry the request');
    case '22P02':
    case '22003':
    case '22007':
    case '22008':
    case '22001':
      return new AppError('BAD_REQUEST', 'a value is out of range or malformed');
    default:
      return null;
  }
}

/** Logs a background failure, except one of a database outage: the outage tracker logs those once. */
export function logFailure(log: FastifyBaseLogger, err: unknown, bindings: object, msg: string): void {
  if (!isOutage(faultOf(err))) log.error({ err, ...bindings }, msg);
}

const FAULT_ANSWERS: Record<FaultKind, { retryAfter: number; detail: string }> = {
  unreachable: { retryAfter: 5, detail: 'the database cannot be reached; retry shortly' },
  connection_lost: { retryAfter: 2, detail: 'the connection to the database broke; the request was not completed, retry shortly' },
  shutdown: { retryAfter: 5, detail: 'the database is restarting; retry shortly' },
  timeout: { retryAfter: 5, detail: 'the database did not answer in time; the request was not completed, retry shortly' },
  too_many_connections: { retryAfter: 2, detail: 'the database has no free connection; retry shortly' },
  statement_timeout: { retryAfter: 2, detail: 'the database did not answer in time; the request was not completed, retry shortly' },
  read_only: { retryAfter: 5, detail: 'the database takes no writes right now (a failover is under way); retry shortly' },
  disk_full: { retryAfter: 60, detail: 'the database has no disk space left; reading works, writing waits until space is freed' },
};

/**
 * A database fault is the service's trouble, not the request's: 503 with Retry-After, and never
 * "done" (a transaction whose connection broke may not have committed). Outages are logged once by
 * the tracker; a statement timeout or a full disk, which are not outages, at most once a minute.
 */
function sendFault(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, fault: FaultKind, error: unknown): FastifyReply {
  const answer = FAULT_ANSWERS[fault];
  if (app.database.outage.firstInAWhile(fault)) request.log.error({ fault, reason: (error as Error).message }, `database fault: ${fault}`);
  reply.header('retry-after', String(answer.retryAfter));
  const code = fault === 'disk_full' ? 'STORAGE_FULL' : 'DATABASE_UNAVAILABLE';
  return sendProblem(reply, problem(request, 503, code, answer.detail));
}

/** Every error Fastify or the code raises leaves as one RFC 9457 problem document. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendProblem(reply, problem(request, 404, 'ROUTE_NOT_FOUND', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  app.setErrorHandler((error: FastifyError & { validationContext?: string }, request, reply) => {
    if (error instanceof AppError) {
      // The client hears only that storage is unavailable; the operator needs to know why.
      if (error.code === 'STORAGE_UNAVAILABLE') request.log.error({ err: error.cause ?? error }, error.message);
      return sendProblem(reply, problem(request, error.status, error.code, error.message, error.errors));
    }
    if (error.validation) {
      const errors = validationErrors(error.validation as AjvIssue[], error.validationContext);
      const first = errors[0];
      return sendProblem(
        reply,
        problem(request, 400, 'VALIDATION_FAILED', first ? `${first.path} ${first.message}` : 'invalid request', errors),
      );
    }
    const fault = faultOf(error);
    if (fault) return sendFault(app, request, reply, fault, error);
    const db = fromDatabase(error);
    if (db) return sendProblem(reply, problem(request, db.status, db.code, db.message));

    switch (error.code) {
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, problem(request, 400, 'INVALID_JSON', 'the body is not valid JSON'));
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
      case 'FST_REQ_FILE_TOO_LARGE':
      case 'FST_FILES_LIMIT':
      case 'FST_PARTS_LIMIT':
      case 'FST_FIELDS_LIMIT':
        return sendProblem(reply, problem(request, 413, 'PAYLOAD_TOO_LARGE', 'the body or a file is too large'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
        return sendProblem(reply, problem(request, 415, 'UNSUPPORTED_MEDIA_TYPE', 'unsupported content type'));
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return sendProblem(reply, problem(request, 400, 'BAD_REQUEST', 'content length does not match the body'));
    }
    const status = error.statusCode ?? 500;
    if (status === 429) {
      return sendProblem(reply, problem(request, 429, 'RATE_LIMITED', 'too many requests, retry later'));
    }
    if (status >= 400 && status < 500) {
      return sendProblem(reply, problem(request, status, status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST', error.message));
    }
    // The stack goes to the log only; the client gets the request id to quote.
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, problem(request, 500, 'INTERNAL'));
  });
}
