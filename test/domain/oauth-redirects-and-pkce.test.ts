import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { s256Challenge, verifierMatches } from '../../src/domain/oauth/pkce.js';
import { redirectUriProblem, registeredRedirect } from '../../src/domain/oauth/redirect-uris.js';

describe('where an authorization may send a browser back', () => {
  test.each([
    ['https://client.example/cb', undefined],
    ['http://127.0.0.1:3000/callback', undefined],
    ['http://[::1]/cb', undefined],
    ['http://localhost:8765/cb', undefined],
    ['com.example.app:/oauth', undefined],
    ['http://client.example/cb', /loopback/],
    ['https://client.example/cb#frag', /fragment/],
    ['https://user:pw@client.example/cb', /credentials/],
    ['javascript:alert(1)', /not allowed/],
    ['data:text/html,x', /not allowed/],
    ['myapp:/cb', /reverse-domain/],
    ['/relative', /absolute/],
  ])('%s', (uri, problem) => {
    const found = redirectUriProblem(uri);
    if (problem === undefined) assert.equal(found, undefined);
    else assert.match(found ?? '', problem);
  });

  test('a request names a registered URI exactly, but for a loopback port', () => {
    const registered = ['https://client.example/cb', 'http://127.0.0.1:3000/cb'];
    assert.equal(registeredRedirect(registered, 'https://client.example/cb'), registered[0]);
    assert.equal(registeredRedirect(registered, 'https://client.example/cb/'), undefined);
    assert.equal(registeredRedirect(registered, 'https://client.example/cb?x=1'), undefined);
    assert.equal(
      registeredRedirect(registered, 'http://127.0.0.1:49152/cb'),
      'http://127.0.0.1:49152/cb',
    );
    assert.equal(registeredRedirect(registered, 'http://127.0.0.1:49152/other'), undefined);
    assert.equal(registeredRedirect(registered, undefined), undefined, 'two registered: name one');
    assert.equal(registeredRedirect([registered[0] ?? ''], undefined), registered[0]);
  });
});

describe('PKCE', () => {
  test('only the verifier the S256 challenge was made from matches', () => {
    const verifier = 'a'.repeat(43);
    const challenge = s256Challenge(verifier);
    assert.equal(verifierMatches(verifier, challenge), true);
    assert.equal(verifierMatches('b'.repeat(43), challenge), false);
    assert.equal(verifierMatches(verifier, verifier), false, 'plain is no S256 challenge');
    assert.equal(verifierMatches('short', s256Challenge('short')), false, 'a verifier is 43+');
  });
});
