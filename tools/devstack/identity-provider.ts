/**
 * A development identity provider (`oidc-provider`) for `npm run dev` and the tests: the people
 * it knows and their groups, and a sign-in page that picks a person without a password. Never
 * part of the gate's build; production signs in at the company's own provider.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/** One person at the provider; `groups` may be changed while it runs (a leaver, a mover). */
export interface DevPerson {
  subject: string;
  name: string;
  email: string;
  groups: string[];
}

export interface DevIdentityProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, DevPerson>;
  close(): Promise<void>;
}

export interface DevIdentityProviderOptions {
  /** Where the gate receives the browser back: `<public URL>/auth/oidc/callback`. */
  redirectUri: string;
  people: DevPerson[];
  host?: string;
  /** 0: any free port. */
  port?: number;
  clientId?: string;
  clientSecret?: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function formField(request: IncomingMessage, name: string): Promise<string | undefined> {
  let body = '';
  for await (const chunk of request) {
    body += String(chunk);
    if (body.length > 4096) return undefined;
  }
  return new URLSearchParams(body).get(name) ?? undefined;
}

/** The provider's sign-in step: a button per person, no password (development only). */
function choosePage(uid: string, people: Iterable<DevPerson>): string {
  const buttons = [...people]
    .map(
      (p) =>
        `<button type="submit" name="subject" value="${escapeHtml(p.subject)}">${escapeHtml(p.name)} (${escapeHtml(p.groups.join(', ') || 'no groups')})</button>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Development identity provider</title></head>
<body><h1>Sign in as</h1><p>A development identity provider: pick a person.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">${buttons}</form></body></html>`;
}

export async function startDevIdentityProvider(
  options: DevIdentityProviderOptions,
): Promise<DevIdentityProvider> {
  const people = new Map(options.people.map((person) => [person.subject, person]));
  const clientId = options.clientId ?? 'fluidbox-gate';
  const clientSecret = options.clientSecret ?? randomBytes(24).toString('base64url');
  const server: Server = createServer();
  await new Promise<void>((resolve) => {
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], profile: ['name', 'groups'], email: ['email', 'email_verified'] },
    // The groups go in the ID token, as company providers are set up to send them.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: {
      Session: 8 * 3600,
      Grant: 8 * 3600,
      Interaction: 600,
      AuthorizationCode: 60,
      AccessToken: 600,
      IdToken: 600,
    },
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    findAccount: (_ctx: unknown, subject: string) => {
      const person = people.get(subject);
      if (!person) return undefined;
      return {
        accountId: subject,
        claims: () => ({
          sub: subject,
          name: person.name,
          email: person.email,
          // The development provider's people are who its form says: their email is its word.
          email_verified: true,
          groups: [...person.groups],
        }),
      };
    },
    // The gate is the only client: its grant is given without a consent step.
    loadExistingGrant: async (ctx: OidcContext) => {
      const found = ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (found) return ctx.oidc.provider.Grant.find(found);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid profile email');
      await grant.save();
      return grant;
    },
  });
  const handle = provider.callback();

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(request.url ?? '');
      if (!match) {
        handle(request, response);
        return;
      }
      try {
        const details = await provider.interactionDetails(request, response);
        if (match[2] && request.method === 'POST') {
          const subject = await formField(request, 'subject');
          if (!subject || !people.has(subject)) throw new Error('no such person');
          await provider.interactionFinished(
            request,
            response,
            { login: { accountId: subject } },
            { mergeWithLastSubmission: false },
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end(choosePage(details.uid, people.values()));
      } catch (err) {
        response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`sign-in failed: ${(err as Error).message}`);
      }
    })();
  });

  return {
    issuer,
    clientId,
    clientSecret,
    people,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** What `loadExistingGrant` reads of oidc-provider's request context. */
interface OidcContext {
  oidc: {
    session: { accountId: string; grantIdFor(clientId: string): string | undefined };
    client: { clientId: string };
    provider: {
      Grant: {
        new (init: { clientId: string; accountId: string }): {
          addOIDCScope(scope: string): void;
          save(): Promise<string>;
        };
        find(id: string): Promise<unknown>;
      };
    };
  };
}
