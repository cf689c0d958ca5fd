import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { clientKey, RateWindow } from '../../src/api/rate-window.js';

describe('the rate window', () => {
  test('an IPv6 client is keyed by its /64, an IPv4 one by its address', () => {
    assert.equal(clientKey('2001:db8:1:2:aaaa::1'), clientKey('2001:db8:1:2:ffff:1:2:3'));
    assert.equal(clientKey('2001:db8:1:2::9'), '2001:db8:1:2::/64');
    assert.notEqual(clientKey('2001:db8:1:3::1'), clientKey('2001:db8:1:2::1'));
    assert.equal(clientKey('::1'), '0:0:0:0::/64');
    assert.equal(clientKey('127.0.0.1'), '127.0.0.1');
    assert.equal(clientKey('::ffff:10.0.0.7'), '10.0.0.7');
  });

  test('many keys stay bounded, the least recently used leaving, each take quick', () => {
    let now = 0;
    const window = new RateWindow(2, 60_000, () => now, 1_000);
    window.take('kept');
    const started = performance.now();
    for (let i = 0; i < 200_000; i++) {
      now = i;
      window.take(`key-${i}`);
      if (i % 500 === 0) window.take('kept');
    }
    assert.ok(window.size <= 1_000, `${window.size} keys`);
    assert.ok(performance.now() - started < 5_000, 'catastrophic only');
    // The key in use stayed and is still counted: a third take within the minute is refused.
    now = 199_999;
    assert.equal(window.take('kept').ok, false);
  });

  test('a full window refuses with the seconds until it frees; a given-back take is uncounted', () => {
    let now = 0;
    const window = new RateWindow(2, 60_000, () => now);
    assert.ok(window.take('a').ok);
    assert.ok(window.take('a').ok);
    window.giveBack('a');
    assert.ok(window.take('a').ok);
    now = 30_000;
    assert.deepEqual(window.take('a'), { ok: false, retryAfterS: 30 });
    now = 60_001;
    assert.ok(window.take('a').ok);
  });
});
