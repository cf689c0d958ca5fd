import { loadConfig, type GateConfig, type TemporalConfig } from '../../src/config.js';

/** What a test may change of the stack's configuration. */
export type ConfigOverrides = Partial<Omit<GateConfig, 'temporal'>> & {
  temporal?: Partial<TemporalConfig>;
};

/** The stack the test run started (tools/test/services.ts): never the dev stack's ports. */
export function testConfig(overrides: ConfigOverrides = {}): GateConfig {
  if (process.env.GATE_TEST_PROFILE !== 'test') {
    throw new Error(
      'no test services: run tests with vitest (`npm test`, `npx vitest run <file>`)',
    );
  }
  const config = loadConfig();
  // A test that sets how often a paused call re-reads its approval means that period, unchanged.
  const fixedRecheck =
    overrides.approvalRecheckS === undefined
      ? {}
      : { approvalRecheckMaxS: overrides.approvalRecheckS };
  return {
    ...config,
    ...fixedRecheck,
    ...overrides,
    temporal: { ...config.temporal, ...overrides.temporal },
  };
}

/** The operator key of the test stack's API. */
export function testOperatorKey(config: GateConfig): string {
  return config.api.operatorKey ?? 'fgo_test-operator-key-0000';
}
