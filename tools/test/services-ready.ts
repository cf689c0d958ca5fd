/**
 * Runs before each test file that needs services (vitest.config.ts): gives the file the run's
 * environment, then waits until the services the global setup started (./services.ts) are up.
 * The first file of a process waits; the others find them up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import type { Readiness } from './services.js';

/** A start this slow is broken, not loaded: PostgreSQL, Temporal and a bundle take seconds. */
const startBoundMs = 5 * 60_000;

const { env, readyFile } = inject('testServices');
Object.assign(process.env, env);

const waitingSince = Date.now();
while (!existsSync(readyFile)) {
  if (Date.now() - waitingSince > startBoundMs)
    throw new Error(`the test services were not up after ${startBoundMs / 1000} s`);
  await sleep(100);
}
const readiness = JSON.parse(readFileSync(readyFile, 'utf8')) as Readiness;
if (!readiness.ok) throw new Error(`the test services did not start:\n${readiness.error}`);
