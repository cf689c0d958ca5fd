/**
 * Web admission is one hook over the whole web scope: every route a browser reaches declares
 * its caller, and no members' page or form answers a signed-out visitor with its content.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { describe, test } from 'vitest';
import { admitVisitors } from '../../src/api/web/admission.js';
import type { ApiContext } from '../../src/api/context.js';
import { useHarness } from '../support/harness.js';

const h = useHarness();

interface WebOperation {
  method: string;
  path: string;
  security: Record<string, unknown>[];
}

/** The web form's operations, read off the route table as the OpenAPI document shows it. */
async function webOperations(): Promise<WebOperation[]> {
  const answer = await h.api.call('GET', '/openapi.json');
  assert.equal(answer.status, 200);
  const paths = answer.body.paths as Record<string, Record<string, any>>;
  return Object.entries(paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => (operation.tags as string[] | undefined)?.includes('web form'))
      .map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        security: operation.security as Record<string, unknown>[],
      })),
  );
}

/** The routes declared for any visitor: their handlers read whatever session they find. */
const anyVisitor = ['GET /connections/oauth/callback', 'POST /logout'];

const forMembers = (operation: WebOperation) =>
  operation.security.some((scheme) => 'webSession' in scheme);

describe('web admission', () => {
  test('every web route declares its caller: a signed-in browser, or anyone', async () => {
    const operations = await webOperations();
    assert.ok(operations.filter(forMembers).length >= 15, 'the members’ pages and forms are read');
    for (const { method, path, security } of operations) {
      assert.ok(
        security.length === 0 || forMembers({ method, path, security }),
        `${method} ${path}`,
      );
    }
  });

  test('a web route that declares no caller, or a bearer caller, is refused when it is registered', () => {
    const web = Fastify();
    admitVisitors(web, {} as ApiContext);
    const page = () => 'served';
    assert.throws(() => web.get('/forgotten', page), /caller is browser or anyone/);
    assert.throws(
      () => web.get('/bearer', { config: { caller: 'operator' } }, page),
      /caller is browser or anyone/,
    );
    web.get('/declared', { config: { caller: 'browser' } }, page);
  });

  test("every members' page and form is admitted: a signed-out visitor is sent to sign in or refused, unless the route is declared for any visitor", async () => {
    const operations = (await webOperations()).filter(forMembers);
    const served: string[] = [];
    for (const { method, path } of operations) {
      const url = path.replace(/\{[a-z_]+\}/g, () => randomUUID());
      const answer = await fetch(h.api.url + url, {
        method,
        redirect: 'manual',
        ...(method === 'POST' && {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'csrf=x',
        }),
      });
      await answer.body?.cancel();
      const toLogin = answer.status === 303 && answer.headers.get('location')?.startsWith('/login');
      if (!toLogin && answer.status !== 401) served.push(`${method} ${path}`);
    }
    assert.deepEqual(
      served.filter((route) => !anyVisitor.includes(route)),
      [],
    );
  });
});
