import { Type } from 'typebox';
import { DateTime, Nullable } from '../../../platform/schemas.js';

const B64u = (description: string) => Type.String({ minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+={0,2}$', description });
const PasskeyName = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'a name to recognise the passkey by (the device or password manager holding it)' });
const Transports = Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 });
const ChallengeId = Type.String({ minLength: 1, maxLength: 200, description: 'the challengeId of the options this response answers' });

export const PasskeySchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    createdAt: DateTime(),
    lastUsedAt: Nullable(DateTime('last sign-in with it')),
    backedUp: Type.Boolean({ description: 'synced to other devices by its provider (multi-device)' }),
    transports: Transports,
  },
  { $id: 'Passkey' },
);

const CredentialDescriptor = Type.Object({ id: Type.String(), type: Type.Literal('public-key'), transports: Type.Optional(Transports) });

/** What navigator.credentials.create() takes (as @simplewebauthn/browser's startRegistration wants it). */
export const CreationOptionsSchema = Type.Object(
  {
    challenge: Type.String(),
    rp: Type.Object({ name: Type.String(), id: Type.String() }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
    pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.Literal('public-key') })),
    timeout: Type.Integer(),
    attestation: Type.String(),
    excludeCredentials: Type.Array(CredentialDescriptor),
    authenticatorSelection: Type.Object({ residentKey: Type.String(), userVerification: Type.String(), requireResidentKey: Type.Boolean() }),
    extensions: Type.Object({ credProps: Type.Optional(Type.Boolean()) }),
    hints: Type.Array(Type.String()),
  },
  { $id: 'PasskeyCreationOptions' },
);

/** What navigator.credentials.get() takes (startAuthentication). No allowCredentials for a passkey sign-in: the authenticator offers its own. */
export const RequestOptionsSchema = Type.Object(
  {
    challenge: Type.String(),
    rpId: Type.String(),
    timeout: Type.Integer(),
    userVerification: Type.String(),
    allowCredentials: Type.Optional(Type.Array(CredentialDescriptor)),
  },
  { $id: 'PasskeyRequestOptions' },
);

export const RegistrationChallengeSchema = Type.Object(
  { challengeId: Type.String({ description: 'send it back with the response; good once, for 5 minutes' }), options: CreationOptionsSchema },
  { $id: 'PasskeyRegistrationChallenge' },
);
export const AuthenticationChallengeSchema = Type.Object(
  { challengeId: Type.String({ description: 'send it back with the response; good once, for 5 minutes' }), options: RequestOptionsSchema },
  { $id: 'PasskeyAuthenticationChallenge' },
);

const ExtensionResults = Type.Object({}, { description: 'clientExtensionResults as the browser gives them' });

/** startRegistration()'s answer (RegistrationResponseJSON). */
export const RegistrationResponseBody = Type.Object({
  id: B64u('credential id'),
  rawId: B64u('credential id'),
  type: Type.Literal('public-key'),
  response: Type.Object({
    clientDataJSON: B64u('client data'),
    attestationObject: B64u('attestation object'),
    authenticatorData: Type.Optional(B64u('authenticator data')),
    transports: Type.Optional(Transports),
    publicKeyAlgorithm: Type.Optional(Type.Integer()),
    publicKey: Type.Optional(B64u('public key (SPKI)')),
  }),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: ExtensionResults,
});

/** startAuthentication()'s answer (AuthenticationResponseJSON). */
export const AuthenticationResponseBody = Type.Object({
  id: B64u('credential id'),
  rawId: B64u('credential id'),
  type: Type.Literal('public-key'),
  response: Type.Object({
    clientDataJSON: B64u('client data'),
    authenticatorData: B64u('authenticator data'),
    signature: B64u('signature'),
    userHandle: Type.Optional(Type.String({ maxLength: 512, description: 'the user handle a discoverable credential carries' })),
  }),
  authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  clientExtensionResults: ExtensionResults,
});

export const RegisterPasskeyBody = Type.Object({ name: PasskeyName, challengeId: ChallengeId, response: RegistrationResponseBody });
export const RegisteredPasskeySchema = Type.Object(
  {
    passkey: PasskeySchema,
    revokedSessions: Type.Integer({ minimum: 0, description: 'other sessions signed out: the first passkey turns two-factor sign-in on, as enrolment does' }),
  },
  { $id: 'RegisteredPasskey' },
);
export const RenamePasskeyBody = Type.Object({ name: PasskeyName });

export const PasskeySignInBody = Type.Object({ challengeId: ChallengeId, response: AuthenticationResponseBody });
export const SecondFactorOptionsBody = Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 200, description: 'the challenge POST /auth/login answered' }) });
export const SecondFactorPasskeyBody = Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 200 }), challengeId: ChallengeId, response: AuthenticationResponseBody });
