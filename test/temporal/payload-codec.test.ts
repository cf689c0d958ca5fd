import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'vitest';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  EncryptionCodec,
  PayloadDecryptionError,
  keyIdMetadata,
} from '../../src/temporal/payload-codec.js';
import type { PayloadKey } from '../../src/domain/secrets/payload-keys.js';

const key = (id: string): PayloadKey => ({ id, key: randomBytes(32) });
const canary = 'canary-4b1d0c-in-an-argument';
const payload = () => defaultPayloadConverter.toPayload({ command: `echo ${canary}` });

test('an encoded payload holds no plaintext and names its key; decoding gives it back', async () => {
  const codec = new EncryptionCodec([key('k1')]);
  const [sealed] = await codec.encode([payload()]);
  assert.ok(sealed);
  assert.ok(
    !Buffer.from(sealed.data ?? [])
      .toString('latin1')
      .includes(canary),
  );
  assert.equal(Buffer.from(sealed.metadata?.[keyIdMetadata] ?? []).toString(), 'k1');
  const [opened] = await codec.decode([sealed]);
  assert.deepEqual(defaultPayloadConverter.fromPayload(opened ?? {}), {
    command: `echo ${canary}`,
  });
});

test('rotation: new payloads use the current key, old ones open with a retired one', async () => {
  const old = key('2026-11');
  const current = key('2026-12');
  const [sealedBefore] = await new EncryptionCodec([old]).encode([payload()]);
  const rotated = new EncryptionCodec([current, old]);
  const [sealedAfter] = await rotated.encode([payload()]);
  assert.equal(Buffer.from(sealedAfter?.metadata?.[keyIdMetadata] ?? []).toString(), '2026-12');
  const opened = await rotated.decode([sealedBefore ?? {}, sealedAfter ?? {}]);
  assert.equal(opened.length, 2);
  for (const p of opened)
    assert.equal(defaultPayloadConverter.fromPayload<any>(p).command, `echo ${canary}`);
});

test('a payload under an unknown key, or tampered with, is refused', async () => {
  const [sealed] = await new EncryptionCodec([key('gone')]).encode([payload()]);
  assert.ok(sealed?.data);
  await assert.rejects(new EncryptionCodec([key('k1')]).decode([sealed]), PayloadDecryptionError);
  const codec = new EncryptionCodec([key('k1')]);
  const [mine] = await codec.encode([payload()]);
  assert.ok(mine?.data);
  const tampered = Buffer.from(mine.data);
  tampered[20] = (tampered[20] ?? 0) ^ 1;
  await assert.rejects(codec.decode([{ ...mine, data: tampered }]), PayloadDecryptionError);
});

test('a payload written before encryption passes through decoding unchanged', async () => {
  const plain = payload();
  assert.deepEqual(await new EncryptionCodec([key('k1')]).decode([plain]), [plain]);
});

test('each sealed payload has a nonce of its own, across the draws of the nonce pool, and opens', async () => {
  const codec = new EncryptionCodec([key('k1')]);
  const sealed = await codec.encode(Array.from({ length: 1_200 }, payload));
  const nonces = new Set(sealed.map((p) => Buffer.from(p.data!.subarray(0, 12)).toString('hex')));
  assert.equal(nonces.size, 1_200);
  const opened = await codec.decode(sealed);
  assert.ok(opened.every((p) => defaultPayloadConverter.fromPayload(p) !== undefined));
  assert.deepEqual(defaultPayloadConverter.fromPayload(opened[1_199]!), {
    command: `echo ${canary}`,
  });
});
