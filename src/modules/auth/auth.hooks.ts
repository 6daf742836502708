import type { Config } from '../../config.js';
import type { Queryable } from '../../db/client.js';

/** What queuing an email needs of an app: its settings (no app is kept in a module-level hook). */
export interface Mailer {
  config: Pick<Config, 'email' | 'publicUrl'>;
}

/**
 * Registration reaches into modules built on top of auth (space invite links, the partner
 * programme). They plug in here at start, so auth does not import them and no cycle forms.
 */
export const joinHooks: {
  joinByInvite?: (db: Queryable, userId: number, token: string) => Promise<{ organizationId: number }>;
  /**
   * Credits a partner link with the registration, in its transaction. organizationId is the
   * organization the registration created, null when the user joined one by invitation. An unknown
   * code is ignored: a stale link must never block signing up.
   */
  attributeReferral?: (db: Queryable, userId: number, organizationId: number | null, code: string) => Promise<void>;
  /** Queues the new address's verification email (the email module, when email is on), in the registration's transaction. */
  registered?: (db: Queryable, userId: number, mailer: Mailer | undefined) => Promise<void>;
} = {};

/** What a sign-in answers when a right password is not enough: a code must follow (202). */
export interface SignInChallenge {
  twoFactorRequired: true;
  challenge: string;
  expiresAt: string;
  /** What may answer it: a code of the authenticator app (or a recovery code), a passkey, or either. */
  methods: Array<'totp' | 'passkey'>;
}

/**
 * A sign-in's second step (two-factor codes), plugged in at start like joinHooks. Given a user whose
 * password was right, it answers the challenge to send back instead of a session, or null when the
 * user has no second factor.
 */
export const signInHooks: {
  secondFactor?: (db: Queryable, userId: number, client: { ip: string | null; userAgent: string | null }) => Promise<SignInChallenge | null>;
} = {};
