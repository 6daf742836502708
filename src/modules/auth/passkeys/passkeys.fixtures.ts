import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { expect } from 'vitest';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { TestKit, TestUser } from '../../../test/app.js';

/**
 * A software authenticator for API tests: ES256 keys made with node:crypto, 'none' attestation,
 * authenticator data with its flags and signature counter, and the client data a browser would add.
 * It signs whatever it is told to (another origin, a stale counter), so tests can make the answers
 * a real authenticator or browser never would.
 */

const b64u = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const UP = 0x01;
const UV = 0x04;
const BE = 0x08;
const BS = 0x10;
const AT = 0x40;

export interface SoftCredential {
  id: string;
  privateKey: KeyObject;
  /** The user handle the relying party gave at registration (base64url). */
  userHandle: string;
  counter: number;
}

export interface SignOptions {
  origin?: string;
  rpId?: string;
  /** The counter to sign with; by default one more than the last (0 stays 0 with `counter: 0`). */
  counter?: number;
  userVerified?: boolean;
  /** Another user handle than the credential's. */
  userHandle?: string;
  type?: string;
}

export class SoftAuthenticator {
  constructor(
    readonly origin: string,
    readonly rpId: string,
  ) {}

  private flags(userVerified: boolean, extra = 0) {
    return UP | (userVerified ? UV : 0) | BE | BS | extra;
  }

  /** Answers registration options as startRegistration() would (a new ES256 credential). */
  create(options: { challenge: string; rp: { id: string }; user: { id: string } }, o: { origin?: string; counter?: number } = {}) {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const rawId = randomBytes(16);
    const counter = o.counter ?? 0;
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(rawId.length);
    const authData = Buffer.concat([sha(options.rp.id), Buffer.from([this.flags(true, AT)]), u32(counter), Buffer.alloc(16), idLength, rawId, Buffer.from(cose)]);
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: o.origin ?? this.origin, crossOrigin: false });
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    const credential: SoftCredential = { id: b64u(rawId), privateKey, userHandle: options.user.id, counter };
    const response = {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ['internal'] },
      authenticatorAttachment: 'platform',
      clientExtensionResults: { credProps: { rk: true } },
    };
    return { credential, response };
  }

  /** Answers authentication options as startAuthentication() would, with a discoverable credential. */
  get(credential: SoftCredential, options: { challenge: string }, o: SignOptions = {}) {
    const counter = o.counter ?? (credential.counter === 0 ? 0 : credential.counter + 1);
    credential.counter = Math.max(credential.counter, counter);
    const authData = Buffer.concat([sha(o.rpId ?? this.rpId), Buffer.from([this.flags(o.userVerified ?? true)]), u32(counter)]);
    const clientDataJSON = Buffer.from(JSON.stringify({ type: o.type ?? 'webauthn.get', challenge: options.challenge, origin: o.origin ?? this.origin, crossOrigin: false }));
    const signature = sign('sha256', Buffer.concat([authData, sha(clientDataJSON)]), credential.privateKey);
    return {
      id: credential.id,
      rawId: credential.id,
      type: 'public-key' as const,
      response: { clientDataJSON: b64u(clientDataJSON), authenticatorData: b64u(authData), signature: b64u(signature), userHandle: o.userHandle ?? credential.userHandle },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
    };
  }
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

/** Adds a passkey to the user's account through the API; answers the credential to sign in with. */
export async function addPasskey(kit: TestKit, user: TestUser, authenticator: SoftAuthenticator, name = 'Laptop', counter?: number): Promise<SoftCredential & { passkeyId: number }> {
  const started = await kit.as(user).post('/user/passkeys/registration');
  expect(started.statusCode, started.body).toBe(201);
  const { challengeId, options } = started.json();
  const { credential, response } = authenticator.create(options, { counter });
  const added = await kit.as(user).post('/user/passkeys', { name, challengeId, response });
  expect(added.statusCode, added.body).toBe(201);
  return Object.assign(credential, { passkeyId: added.json().passkey.id as number });
}

/** Options of a passkey sign-in (usernameless). */
export async function signInOptions(kit: TestKit): Promise<{ challengeId: string; options: { challenge: string } }> {
  const res = await kit.as(null).post('/auth/passkey/options');
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
