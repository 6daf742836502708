import type { App } from '../../platform/types.js';
import type { TSchema } from 'typebox';

import { read, write } from '../../platform/context.js';
import { upload } from '../../platform/openapi.js';
import { receiveFile, withUpload } from '../files/files.service.js';
import {
  BirthDateBody,
  CodeHostLinkBody,
  EmailBody,
  JobTitleBody,
  LanguageBody,
  MessengerLinkBody,
  NameBody,
  PasswordBody,
  PasswordResult,
  PhoneBody,
  UserSchema,
} from './users.schemas.js';
import * as users from './users.service.js';
import { changeEmail, checkPasswordForEmailChange } from './users.email.js';

const tags = ['Profile'];
const ok = { 200: UserSchema };

// Single-property profile changes share one shape: PATCH /user/<property> {<property>} → User.
const PROPERTIES: Array<{ path: string; field: users.ProfileField; summary: string; body: TSchema }> = [
  { path: 'name', field: 'name', summary: 'Change name', body: NameBody },
  { path: 'birth-date', field: 'birthDate', summary: 'Change birth date (null clears)', body: BirthDateBody },
  { path: 'phone-number', field: 'phoneNumber', summary: 'Change phone number, E.164 (null clears)', body: PhoneBody },
  { path: 'job-title', field: 'jobTitle', summary: 'Change job title (null clears)', body: JobTitleBody },
  { path: 'messenger-link', field: 'messengerLink', summary: 'Change messenger link (null clears)', body: MessengerLinkBody },
  { path: 'code-host-link', field: 'codeHostLink', summary: 'Change code-host link (null clears)', body: CodeHostLinkBody },
  { path: 'language', field: 'language', summary: 'Change the language of email sent to you (en, ru; null: not chosen)', body: LanguageBody },
];

export default async function userRoutes(app: App): Promise<void> {
  app.get('/user', { schema: { tags, summary: 'Current user info', response: ok } }, (request) =>
    read(app, request, (ctx) => users.loadUser(ctx.db, ctx.actor.userId)),
  );

  app.patch(
    '/user/clear-personal-data',
    { schema: { tags, summary: 'Clear personal data (phone, birth date, job title, links, avatar)', response: ok } },
    (request) => write(app, request, (ctx) => users.clearPersonalData(ctx, app.files)),
  );

  app.patch(
    '/user/avatar',
    {
      schema: {
        tags,
        summary: 'Change avatar (multipart field `file`: PNG, JPEG, GIF, WebP or AVIF, checked by content)',
        ...upload('file'),
        response: ok,
      },
    },
    async (request) => {
      const received = await receiveFile(request, app.files, { maxBytes: app.config.imageLimitBytes, imageOnly: true });
      return withUpload(app.files, received, () => write(app, request, (ctx) => users.changeAvatar(ctx, app.files, received)));
    },
  );

  app.delete('/user/avatar', { schema: { tags, summary: 'Delete avatar', response: ok } }, (request) =>
    write(app, request, (ctx) => users.deleteAvatar(ctx, app.files)),
  );

  for (const { path, field, summary, body } of PROPERTIES) {
    app.patch(`/user/${path}`, { schema: { tags, summary, body, response: ok } }, (request) =>
      write(app, request, (ctx) => users.updateProfile(ctx, field, (request.body as Record<string, string | null>)[field] ?? null)),
    );
  }

  app.patch(
    '/user/password',
    {
      schema: {
        tags,
        summary: 'Change password (requires the current one; revokes the other sessions)',
        body: PasswordBody,
        response: { 200: PasswordResult },
      },
    },
    async (request) => {
      const prepared = await read(app, request, (ctx) => users.preparePasswordChange(ctx, request.body, app.config.passwordHashCost));
      return write(app, request, (ctx) => users.changePassword(ctx, prepared));
    },
  );

  app.patch(
    '/user/email',
    {
      schema: {
        tags,
        summary:
          'Change email address (requires the current password; 409 EMAIL_TAKEN): the new address is unverified and is sent a verification link, the old one a note of the change',
        body: EmailBody,
        response: ok,
      },
    },
    async (request) => {
      const checkedHash = await read(app, request, (ctx) => checkPasswordForEmailChange(ctx, request.body.password));
      return write(app, request, (ctx) => changeEmail(ctx, app, { email: request.body.email, checkedHash }));
    },
  );
}
