import * as client from 'openid-client';
import type { OidcClientConfig } from '../../config.js';
import type { SignedInPerson } from '../../store/people.js';
import { Problem } from '../problem.js';

/** The path the identity provider sends the browser back to, under the public URL. */
export const callbackPath = '/auth/oidc/callback';

/** What a sign-in must match when the browser comes back: kept server-side, taken once. */
interface AuthorizationChecks {
  state: string;
  nonce: string;
  code_verifier: string;
}

/** The provider answered, but not with a sign-in this gate accepts; the reason says why. */
export class SignInRefusedError extends Problem {
  override name = 'SignInRefusedError';
  constructor(reason: string) {
    super(
      401,
      `Sign-in was refused: ${reason}. Nothing was recorded; start again from the sign-in page.`,
    );
  }
}

/** How long one request to the provider (discovery, the code exchange, its keys) may take. */
const providerTimeoutS = 5;

/** Plain http only for a provider on this machine (development, tests): never across a network. */
function loopback(issuer: URL): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
}

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/** An id claim as text: a non-empty string, or a whole number; anything else is none. */
const idOf = (value: unknown): string | null =>
  text(value) ?? (Number.isSafeInteger(value) ? String(value) : null);

/**
 * The gate as an OpenID Connect relying party (`openid-client`): the authorization code flow
 * with PKCE (S256), state and nonce; the ID token's issuer, audience, expiry and signature
 * (against the provider's published keys) are checked before anyone is signed in.
 */
export class OidcRelyingParty {
  private discovered: Promise<client.Configuration> | undefined;
  readonly redirectUri: string;

  constructor(
    private readonly settings: OidcClientConfig,
    publicUrl: string,
  ) {
    this.redirectUri = new URL(callbackPath, publicUrl).href;
  }

  /** Discovered once, on first use, and again after a failure: the gate starts with it away. */
  private configuration(): Promise<client.Configuration> {
    this.discovered ??= this.discover().catch((err: unknown) => {
      this.discovered = undefined;
      throw new Problem(
        503,
        `the identity provider could not be reached (${(err as Error).message}); try again shortly`,
      );
    });
    return this.discovered;
  }

  private async discover(): Promise<client.Configuration> {
    const issuer = new URL(this.settings.issuer);
    const configuration = await client.discovery(
      issuer,
      this.settings.clientId,
      undefined,
      client.ClientSecretBasic(this.settings.clientSecret),
      {
        timeout: providerTimeoutS,
        ...(issuer.protocol === 'http:' &&
          loopback(issuer) && {
            // Deprecated only to stand out: plain http is allowed to a provider on loopback only.
            // eslint-disable-next-line @typescript-eslint/no-deprecated
            execute: [client.allowInsecureRequests],
          }),
      },
    );
    // Without this an ID token from the token endpoint is trusted for arriving over TLS; the
    // gate checks its signature against the provider's keys as well.
    client.enableNonRepudiationChecks(configuration);
    return configuration;
  }

  /** Fresh values for one sign-in: the browser carries none of them. */
  static newChecks(): AuthorizationChecks {
    return {
      state: client.randomState(),
      nonce: client.randomNonce(),
      code_verifier: client.randomPKCECodeVerifier(),
    };
  }

  async authorizationUrl(checks: AuthorizationChecks): Promise<URL> {
    const configuration = await this.configuration();
    return client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(checks.code_verifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
    });
  }

  /**
   * The person the provider signed in, from the callback's query: the code is exchanged with
   * the PKCE verifier, and the state, nonce and ID token are checked. Any failure refuses.
   */
  async signedInPerson(query: string, checks: AuthorizationChecks): Promise<SignedInPerson> {
    const configuration = await this.configuration();
    const callback = new URL(this.redirectUri);
    callback.search = query;
    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callback, {
        pkceCodeVerifier: checks.code_verifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (err) {
      throw new SignInRefusedError(refusalReason(err));
    }
    if (!claims) throw new SignInRefusedError('the provider sent no ID token');
    return {
      issuer: claims.iss,
      subject: claims.sub,
      // With a claim named, that claim alone: a token without it is matched by no externalId
      // (never by its subject, which may be another person's id in the claim's own terms).
      // Unnamed, the subject stands for it (`externalIdOf`).
      ...(this.settings.externalIdClaim !== undefined && {
        externalId: idOf(claims[this.settings.externalIdClaim]),
        verifiedEmailOnly: true,
      }),
      name: text(claims.name) ?? text(claims.preferred_username),
      email: text(claims.email),
      claims,
    };
  }
}

/**
 * What the provider or the checks said: openid-client wraps the failed check (a state, an
 * audience, a signature) in a general message, so the innermost one names it.
 */
function refusalReason(err: unknown): string {
  if (err instanceof client.AuthorizationResponseError || err instanceof client.ResponseBodyError) {
    return `the identity provider answered ${err.error}`;
  }
  let innermost = err;
  while (innermost instanceof Error && innermost.cause instanceof Error)
    innermost = innermost.cause;
  const message = innermost instanceof Error ? innermost.message : 'unknown error';
  return message.slice(0, 200).replace(/\.$/, '');
}
