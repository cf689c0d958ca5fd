import { runtimeConfig, type RuntimeConfig } from '../../src/runtime-config.js';

/** The stack `npm test` started: tests never fall back to the dev stack's ports. */
export function testConfig(
  overrides: Partial<RuntimeConfig> = {},
): RuntimeConfig & { operatorKey: string } {
  if (process.env.GATE_TEST_PROFILE !== 'test') {
    throw new Error('run tests through `npm test`, which starts the services they need');
  }
  const config = runtimeConfig();
  return {
    ...config,
    operatorKey: config.operatorKey ?? 'fgo_test-operator-key-0000',
    ...overrides,
  };
}
