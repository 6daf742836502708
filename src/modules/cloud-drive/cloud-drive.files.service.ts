import { Readable } from 'node:stream';
import type { Multipart } from '@fastify/multipart';
import { AppError, forbidden, notFound } from '../../platform/errors.js';
import { assertStorableText } from '../../platform/validation.js';
import { authorizeMessage } from '../tasks/messages/messages.policy.js';
import { authorizeSend, editMessage, sendMessage, type DriveAttachmentInput } from '../tasks/messages/messages.service.js';
import { FILES_MAX, type MessageDto } from '../tasks/messages/messages.schemas.js';
import { DriveError } from './drive.client.js';
import { FOLDER_MIME, presentDriveFile, safeContentType } from './cloud-drive.presenter.js';
import type { DriveFileDto, EditDriveMessageInput, FilesQueryInput, SendDriveMessageInput } from './cloud-drive.schemas.js';
import type { Session } from './cloud-drive.service.js';
import { accessTokenFor, withDrive, type DriveDeps } from './cloud-drive.tokens.js';

/** Browsing, uploading and downloading the caller's drive, and attaching its files to task chats. */

const FILE_ID = /^[A-Za-z0-9_-]{1,200}$/;

/** The provider's refusal in the API's terms: what the drive does not have is not found here either. */
function asAppError(err: unknown): never {
  if (!(err instanceof DriveError)) throw err;
  if (err.status === 404) throw notFound('drive file');
  if (err.status === 403) throw forbidden(`the cloud drive refused: ${err.message}`);
  if (err.status === 400) throw new AppError('VALIDATION_FAILED', `the cloud drive refused the request: ${err.message}`);
  throw new AppError('CLOUD_DRIVE_FAILED', `the cloud drive failed: ${err.message}`);
}

const drive = <T>(deps: DriveDeps, userId: number, call: (token: string) => Promise<T>) => withDrive(deps, userId, call).catch(asAppError);

// Drive's query language quotes with ' and escapes with \.
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A page of the caller's files (not trashed), by folder and/or name; the provider's page token leads on. */
export async function listFiles(deps: DriveDeps, userId: number, query: FilesQueryInput): Promise<{ files: DriveFileDto[]; nextPageToken: string | null }> {
  const clauses = ['trashed = false'];
  if (query.folderId) clauses.push(`${quoted(query.folderId)} in parents`);
  if (query.q) clauses.push(`name contains ${quoted(query.q)}`);
  const page = await drive(deps, userId, (token) => deps.client.list(token, { q: clauses.join(' and '), pageToken: query.pageToken, pageSize: query.limit ?? 50 }));
  return { files: (page.files ?? []).map(presentDriveFile), nextPageToken: page.nextPageToken ?? null };
}

const safeName = (filename: string | undefined) => (filename || 'file').replace(/[\u0000-\u001f/\\]/g, '_').slice(0, 255);

/**
 * Streams each file part straight into a Drive upload as it arrives (FILE_LIMIT_BYTES per file, by
 * the multipart parser). `folderId` applies to the files after it, so it must come first.
 */
export async function uploadFiles(deps: DriveDeps, userId: number, parts: AsyncIterableIterator<Multipart>): Promise<DriveFileDto[]> {
  const uploaded: DriveFileDto[] = [];
  try {
    return await streamParts(deps, userId, parts, uploaded);
  } catch (err) {
    // A failed request changes nothing: the files it already put in the drive go again (best effort).
    await Promise.all(uploaded.map((f) => withDrive(deps, userId, (token) => deps.client.remove(token, f.id)).catch(() => {})));
    // The parser's own errors carry a code the error handler maps (413, 415); the rest is a body cut or garbled.
    if (err instanceof AppError || typeof (err as { code?: unknown } | null)?.code === 'string') throw err;
    throw new AppError('MALFORMED_MULTIPART', 'the multipart/form-data body is malformed');
  }
}

async function streamParts(deps: DriveDeps, userId: number, parts: AsyncIterableIterator<Multipart>, uploaded: DriveFileDto[]): Promise<DriveFileDto[]> {
  let folderId: string | undefined;
  for await (const part of parts) {
    if (part.type !== 'file') {
      assertStorableText(part.fieldname, '/');
      const value = String(part.value);
      if (part.fieldname !== 'folderId') throw new AppError('VALIDATION_FAILED', `unknown field ${part.fieldname.slice(0, 50)}`, [{ path: '/', message: 'only folderId and files[]' }]);
      if (uploaded.length > 0) throw new AppError('VALIDATION_FAILED', 'folderId must come before the files', [{ path: '/folderId', message: 'must precede files[]' }]);
      if (!FILE_ID.test(value)) throw new AppError('VALIDATION_FAILED', 'folderId is not a drive id', [{ path: '/folderId', message: 'must match ^[A-Za-z0-9_-]+$' }]);
      folderId = value;
      continue;
    }
    if (uploaded.length >= FILES_MAX) throw new AppError('VALIDATION_FAILED', `at most ${FILES_MAX} files`, [{ path: '/files[]', message: `must hold at most ${FILES_MAX} files` }]);
    const file = { name: safeName(part.filename), mimeType: safeContentType(part.mimetype), folderId };
    // A stream cannot be sent twice, so no retry on 401: the token is one not yet due instead.
    const token = await accessTokenFor(deps, userId);
    let inbound: unknown = null;
    // The parser ends a file at the limit as if it were complete: failing the body before its last
    // boundary makes the provider drop the upload instead of keeping a cut file. So does a request
    // body that breaks off; either way the fault is the request's, not the provider's.
    const content = async function* () {
      try {
        for await (const chunk of part.file) yield chunk as Uint8Array;
      } catch (err) {
        inbound = err;
        throw err;
      }
      if (part.file.truncated) {
        inbound = new AppError('PAYLOAD_TOO_LARGE', `a file is larger than ${deps.app.config.fileLimitBytes} bytes`);
        throw inbound;
      }
    };
    const meta = await deps.client.upload(token, file, content()).catch((err: unknown) => {
      if (inbound) throw inbound;
      return asAppError(err);
    });
    uploaded.push(presentDriveFile(meta));
  }
  if (uploaded.length === 0) throw new AppError('VALIDATION_FAILED', 'at least one file is required', [{ path: '/files[]', message: 'is required' }]);
  return uploaded;
}

/** A file's content as the provider streams it, with what the reply needs to describe it. */
export async function openFile(deps: DriveDeps, userId: number, fileId: string): Promise<{ name: string; contentType: string; size: number | null; body: Readable }> {
  const meta = await drive(deps, userId, (token) => deps.client.metadata(token, fileId));
  if (meta.mimeType === FOLDER_MIME) throw new AppError('VALIDATION_FAILED', 'a folder has no content to download', [{ path: '/fileId', message: 'is a folder' }]);
  const res = await drive(deps, userId, (token) => deps.client.media(token, fileId));
  const length = Number(res.headers.get('content-length'));
  return {
    name: meta.name,
    contentType: safeContentType(res.headers.get('content-type')),
    size: Number.isSafeInteger(length) && length >= 0 && res.headers.has('content-length') ? length : null,
    body: Readable.fromWeb(res.body as never),
  };
}

/**
 * Each id checked against the caller's drive (metadata fetched once per file, in parallel): what
 * is stored is a reference other readers can see without anyone's token.
 */
async function resolveDriveFiles(deps: DriveDeps, userId: number, ids: string[]): Promise<DriveAttachmentInput[]> {
  if (ids.length === 0) return [];
  const metas = await Promise.all(
    ids.map((id) =>
      withDrive(deps, userId, (token) => deps.client.metadata(token, id)).catch((err: unknown) => {
        if (err instanceof DriveError && (err.status === 404 || err.status === 403)) return null;
        return asAppError(err);
      }),
    ),
  );
  const missing = ids.filter((_, i) => metas[i] === null);
  if (missing.length > 0) {
    throw new AppError('VALIDATION_FAILED', `driveFileIds: ${missing.join(', ').slice(0, 300)} not in your cloud drive`, [{ path: '/driveFileIds', message: 'must name files of the caller’s drive' }]);
  }
  return metas.map((m, i) => {
    if (m!.mimeType === FOLDER_MIME) throw new AppError('VALIDATION_FAILED', 'a folder cannot be attached', [{ path: `/driveFileIds/${i}`, message: 'is a folder' }]);
    const file = presentDriveFile(m!);
    return { driveFileId: file.id, name: file.name.slice(0, 500) || 'file', mimeType: file.mimeType, size: file.size ?? 0, webUrl: file.webUrl ?? `https://drive.google.com/file/d/${file.id}/view` };
  });
}

/** POST …/tasks/{taskId}/messages: the chat's own rules first (404/403), then the drive, then the message. */
export async function sendDriveMessage(deps: DriveDeps, session: Session, taskId: number, input: SendDriveMessageInput): Promise<MessageDto> {
  await session.read((ctx) => authorizeSend(ctx, taskId));
  const driveFiles = await resolveDriveFiles(deps, session.actor.userId, input.driveFileIds);
  return session.write((ctx) => sendMessage(ctx, deps.app.files, taskId, { text: input.text ?? '', replyToId: input.replyToId ?? null }, [], driveFiles));
}

/** PATCH …/tasks/{taskId}/messages/{messageId}: the author's new text and/or drive attachments. */
export async function editDriveMessage(deps: DriveDeps, session: Session, taskId: number, messageId: number, input: EditDriveMessageInput): Promise<MessageDto> {
  await session.read((ctx) => authorizeMessage(ctx.db, ctx.actor, taskId, messageId, 'edit'));
  const driveFiles = input.driveFileIds ? await resolveDriveFiles(deps, session.actor.userId, input.driveFileIds) : undefined;
  return session.write((ctx) => editMessage(ctx, taskId, messageId, { text: input.text, driveFiles }));
}
