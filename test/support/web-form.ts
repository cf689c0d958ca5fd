import assert from 'node:assert/strict';

/** The `name=value` pairs a response sets, for sending back as a Cookie header. */
function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((cookie) => cookie.split(';')[0] ?? '');
}

/** The CSRF value a page's form carries. */
export function csrfIn(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  assert.ok(match?.[1], 'the page carries a CSRF token');
  return match[1];
}

const form = (fields: Record<string, string>) => ({
  'content-type': 'application/x-www-form-urlencoded',
  body: new URLSearchParams(fields).toString(),
});

/**
 * Signs in with the user token as the web form does, over plain HTTP (the login form's
 * double-submit CSRF cookie); returns the session cookie, undefined when refused.
 */
export async function signInOverHttp(
  baseUrl: string,
  userToken: string,
): Promise<string | undefined> {
  const loginPage = await fetch(`${baseUrl}/login`);
  const loginCookies = cookiesOf(loginPage);
  const login = form({ csrf: csrfIn(await loginPage.text()), token: userToken });
  const signedIn = await fetch(`${baseUrl}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: loginCookies.join('; '), 'content-type': login['content-type'] },
    body: login.body,
  });
  if (signedIn.status !== 303) return undefined;
  return cookiesOf(signedIn).find((c) => c.startsWith('fg_session='));
}

/**
 * Decides an approval the way a person does in the web form, over plain HTTP: signs in, opens
 * the approval's page for its CSRF token, and posts the decision.
 */
export async function decideInWebForm(
  baseUrl: string,
  userToken: string,
  approval: { session_id: string; tool_call_id: string },
  decision: 'approve' | 'deny',
): Promise<void> {
  const cookie = await signInOverHttp(baseUrl, userToken);
  assert.ok(cookie, 'signed in');
  const session = [cookie];
  const page = `${baseUrl}/approvals/${approval.session_id}/${approval.tool_call_id}`;
  const detail = await fetch(page, { headers: { cookie: session.join('; ') } });
  assert.equal(detail.status, 200);
  const decide = form({ csrf: csrfIn(await detail.text()), decision });
  const decided = await fetch(`${page}/decision`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: session.join('; '), 'content-type': decide['content-type'] },
    body: decide.body,
  });
  assert.ok(decided.status === 303 || decided.status === 200, `decided: ${decided.status}`);
}
