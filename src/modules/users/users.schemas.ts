import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../platform/schemas.js';

export const LANGUAGES = ['en', 'ru'] as const;
export type LanguageCode = (typeof LANGUAGES)[number];
const Language = Type.Unsafe<LanguageCode>({
  type: 'string',
  enum: [...LANGUAGES],
  description: 'language of the email the service sends this user; null: not chosen (English)',
});

export const UserSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    emailVerified: Type.Boolean({ description: 'the address was confirmed by an emailed link (added)' }),
    name: Type.String(),
    avatar: Nullable(Type.String({ description: 'download link of the avatar' })),
    phoneNumber: Nullable(Type.String()),
    messengerLink: Nullable(Type.String()),
    messengerConnected: Type.Boolean({ description: 'a messenger chat gets this user’s notifications (added)' }),
    jobTitle: Nullable(Type.String()),
    codeHostLink: Nullable(Type.String()),
    birthDate: Nullable(DateTime()),
    activeOrganizationId: Nullable(Type.Integer()),
    language: Nullable(Language),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { $id: 'User' },
);
export type UserDto = Static<typeof UserSchema>;

const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000, description: 'http(s) URL' });

export const NameBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 500, pattern: '\\S' }) });
export const BirthDateBody = Type.Object({ birthDate: Nullable(DateTime()) });
export const PhoneBody = Type.Object({
  phoneNumber: Nullable(Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164, e.g. +4915112345678' })),
});
export const JobTitleBody = Type.Object({ jobTitle: Nullable(Type.String({ maxLength: 500 })) });
export const MessengerLinkBody = Type.Object({ messengerLink: Nullable(Url) });
export const CodeHostLinkBody = Type.Object({ codeHostLink: Nullable(Url) });
export const LanguageBody = Type.Object({ language: Nullable(Language) });
export const PasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: 200 }),
  newPassword: Type.String({ minLength: 8, maxLength: 200 }),
});
export const EmailBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 320, description: 'the new address: unverified until its emailed link is followed' }),
  password: Type.String({ minLength: 1, maxLength: 200, description: 'the current password' }),
});
export const PasswordResult = Type.Object({ revokedSessions: Type.Integer({ description: 'other sessions revoked' }) });
