import { Type, type Static } from 'typebox';

export const NOTIFICATION_EMAIL_MODES = ['off', 'immediate', 'hourly', 'daily'] as const;

export const NotificationEmailSchema = Type.Object(
  {
    mode: Type.Unsafe<(typeof NOTIFICATION_EMAIL_MODES)[number]>({
      type: 'string',
      enum: [...NOTIFICATION_EMAIL_MODES],
      description: 'off; immediate (within a minute); hourly digest; daily digest at `hour` in `timeZone` (the default)',
    }),
    hour: Type.Integer({ minimum: 0, maximum: 23, description: 'the local hour of the daily digest' }),
    timeZone: Type.String({ minLength: 1, maxLength: 64, description: 'an IANA time zone, e.g. Europe/Berlin' }),
    mentionsImmediately: Type.Boolean({
      description: 'mentions are emailed at once (within a minute) even when the rest goes by hourly or daily digest; nothing goes when mode is off (added)',
    }),
  },
  { $id: 'NotificationEmail' },
);
export type NotificationEmailDto = Static<typeof NotificationEmailSchema>;

/** The request form: `mentionsImmediately` may be left out (older clients), which keeps it as it is. */
export const NotificationEmailBody = Type.Object({
  mode: NotificationEmailSchema.properties.mode,
  hour: NotificationEmailSchema.properties.hour,
  timeZone: NotificationEmailSchema.properties.timeZone,
  mentionsImmediately: Type.Optional(NotificationEmailSchema.properties.mentionsImmediately),
}, { $id: 'NotificationEmailInput' });
export type NotificationEmailInput = Static<typeof NotificationEmailBody>;

export const UnsubscribeQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the signed token of the List-Unsubscribe URL' }) });

export const VerifyEmailBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: 'the token of the emailed verification link' }) });
