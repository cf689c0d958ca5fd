import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StackProfile } from './stack-config.js';

/**
 * A secret of 32 random bytes kept in a file of the stack's data folder (0600), made on first
 * use: whoever starts or joins the stack later reads the same one.
 */
export function keptSecret(
  profile: StackProfile,
  file: string,
  encoding: 'base64' | 'base64url' = 'base64',
): string {
  const keyFile = path.join(path.dirname(profile.postgres.dataDir), file);
  if (!existsSync(keyFile)) {
    mkdirSync(path.dirname(keyFile), { recursive: true });
    try {
      writeFileSync(keyFile, randomBytes(32).toString(encoding), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process of the stack made it first: theirs is the one.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return readFileSync(keyFile, 'utf8').trim();
}

/**
 * A stack's secret, unless the environment gives one. A dev stack keeps its own beside its data
 * (what it sealed or encrypted must open after a restart); a test stack makes a new one each run.
 */
function stackSecret(profile: StackProfile, file: string): string {
  if (profile.name === 'test') return randomBytes(32).toString('base64');
  return keptSecret(profile, file);
}

/** The key that seals connection credentials at rest. */
export function sealingKey(profile: StackProfile): string {
  return process.env.GATE_SEALING_KEY || stackSecret(profile, 'sealing.key');
}

/** The key that encrypts payloads in Temporal history, with the id `dev` or `test`. */
export function payloadKeys(profile: StackProfile): string {
  return process.env.GATE_PAYLOAD_KEYS || `${profile.name}:${stackSecret(profile, 'payload.key')}`;
}
