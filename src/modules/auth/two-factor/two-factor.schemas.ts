import { Type } from 'typebox';
import { DateTime, Nullable } from '../../../platform/schemas.js';

const TotpCode = Type.String({ pattern: '^[0-9]{6}$', description: 'the 6-digit code the authenticator app shows now' });
const AnyCode = Type.String({
  minLength: 6,
  maxLength: 40,
  description: 'the 6-digit code of the authenticator app, or one of the recovery codes (each works once)',
});

export const TwoFactorChallengeSchema = Type.Object(
  {
    twoFactorRequired: Type.Literal(true),
    challenge: Type.String({ description: 'send it back with a code to POST /auth/login/two-factor; it signs in nothing by itself' }),
    expiresAt: DateTime('the challenge must be answered before this'),
    methods: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('passkey')]), {
      minItems: 1,
      description: 'what may answer it: totp (a code, POST /auth/login/two-factor), passkey (POST /auth/login/two-factor/passkey/options, then POST /auth/login/two-factor/passkey)',
    }),
  },
  { $id: 'TwoFactorChallenge' },
);

export const TwoFactorSignInBody = Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 200 }), code: AnyCode });

export const TwoFactorStatusSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    enabledAt: Nullable(DateTime()),
    recoveryCodesLeft: Type.Integer({ minimum: 0, description: 'unused recovery codes' }),
    requiredByOrganization: Type.Boolean({ description: 'the active organization requires two-factor sign-in of its members' }),
    enrolmentRequired: Type.Boolean({ description: 'every route but enrolment answers 403 TWO_FACTOR_ENROLMENT_REQUIRED until this caller enrols (single sign-on users are exempt)' }),
  },
  { $id: 'TwoFactorStatus' },
);

export const TwoFactorEnrolmentSchema = Type.Object(
  {
    secret: Type.String({ description: 'base32 TOTP secret, for typing into an authenticator app' }),
    uri: Type.String({ description: 'otpauth:// URI holding the same secret, for a QR code' }),
  },
  { $id: 'TwoFactorEnrolment' },
);

export const ConfirmEnrolmentBody = Type.Object({ code: TotpCode });

export const RecoveryCodesSchema = Type.Object(
  {
    recoveryCodes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'shown only in this response; each signs in once without the app' }),
    revokedSessions: Type.Integer({ minimum: 0, description: 'other sessions signed out as two-factor sign-in was turned on' }),
  },
  { $id: 'TwoFactorRecoveryCodes' },
);

export const RegeneratedRecoveryCodesSchema = Type.Object(
  { recoveryCodes: Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'shown only in this response; every earlier recovery code stops working' }) },
  { $id: 'TwoFactorRegeneratedRecoveryCodes' },
);

export const DisableBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 200 }), code: AnyCode });

export const RegenerateBody = Type.Object({ password: Type.String({ minLength: 1, maxLength: 200 }), code: AnyCode });

export const RequirementSchema = Type.Object(
  { twoFactorRequired: Type.Boolean({ description: 'members signing in with a password must use two-factor sign-in; single sign-on users are exempt' }) },
  { $id: 'TwoFactorRequirement' },
);
export const RequirementBody = Type.Object({ twoFactorRequired: Type.Boolean() });
