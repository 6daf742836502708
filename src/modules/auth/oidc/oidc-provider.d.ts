// The parts of oidc-provider (which ships no types) that the service uses: the OAuth authorization
// server of src/modules/oauth, and the fake identity provider of the single sign-on tests.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Grant {
    jti: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  interface Context {
    oidc: {
      provider: Provider;
      client?: { clientId: string };
      session?: { accountId?: string };
    };
  }
  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }
  interface Interaction {
    uid: string;
    prompt: { name: string; reasons?: string[]; details?: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
    returnTo?: string;
  }
  interface ClientRecord {
    clientId: string;
    clientName?: string;
    clientUri?: string;
    redirectUris: string[];
  }

  export const errors: Record<string, new (description?: string) => Error>;

  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & {
      findAccount?: (ctx: Context, id: string) => Account | undefined | Promise<Account | undefined>;
      loadExistingGrant?: (ctx: Context) => Promise<Grant>;
      interactions?: { url: (ctx: Context, interaction: { uid: string }) => string };
    });
    /** Koa's: trust X-Forwarded-Proto and -Host. */
    proxy: boolean;
    Grant: { new (properties: { clientId: string; accountId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    Client: { find(id: string): Promise<ClientRecord | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
  }
}
