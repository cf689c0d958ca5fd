import { defineConfig } from 'vitest/config';
import SlowestFirst from './tools/test/slowest-first.js';

/**
 * Files that need neither PostgreSQL nor Temporal: they run first, while the services start. A
 * file not named here waits for the services, so a new file is never short of them.
 */
const withoutServices = [
  'test/domain/**/*.test.ts',
  'test/bench/measured-processes.test.ts',
  'test/config.test.ts',
  'test/devstack/stack-config.test.ts',
  'test/api/error-mapping.test.ts',
  'test/api/follow.test.ts',
  'test/api/keyed-waiters.test.ts',
  'test/api/mcp-tasks.test.ts',
  'test/api/rate-window.test.ts',
  'test/broker/address-reach.test.ts',
  'test/broker/oauth-answer-bounds.test.ts',
  'test/broker/photograph.test.ts',
  'test/budget/media-and-thinking-bounds.test.ts',
  'test/budget/proxy-metering.test.ts',
  'test/gate/local-answers.test.ts',
  'test/runner/agent-sdk-tools.test.ts',
  'test/runner/gate-client.test.ts',
  'test/runner/pre-tool-use-hook.test.ts',
  'test/telemetry/heap-growth.test.ts',
  'test/telemetry/tracing-config.test.ts',
  'test/temporal/payload-codec.test.ts',
  'test/temporal/recorded-window.test.ts',
  'test/web/visible-text.test.ts',
  'test/lint/*.test.ts',
];
/**
 * Files that stop a service of their own under load and bound every answer in time: after the
 * others, beside each other only, so that the machine's load is theirs.
 */
const outage = ['test/**/*.outage.test.ts'];
/**
 * Files that disturb what the shared services show others (a sweep of every hold) or load them on
 * purpose: one at a time, last.
 */
const serial = ['test/**/*.serial.test.ts'];
/** The services, started once per run (tools/test/services.ts), and each file's wait for them. */
const services = {
  globalSetup: ['tools/test/services.ts'],
  setupFiles: ['tools/test/services-ready.ts'],
};

export default defineConfig({
  test: {
    // A process runs file after file and keeps its modules: what files share (the SDKs, an API of
    // the same configuration: test/support/harness.ts) is loaded once per process.
    pool: 'forks',
    isolate: false,
    // Every test and hook is bounded; a test that needs longer says so in its options.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The last project's teardown runs the bench's check and stops the services.
    teardownTimeout: 180_000,
    reporters: ['default', './tools/test/reporter.ts'],
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'no-services',
          include: withoutServices,
          sequence: { groupOrder: 0 },
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: [...withoutServices, ...outage, ...serial],
          ...services,
          sequence: { groupOrder: 1 },
          // Both cores stay busy while files wait on services: more processes measured no faster.
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        test: {
          name: 'outage',
          include: outage,
          ...services,
          sequence: { groupOrder: 2 },
          // Each file in a process of its own: they mostly wait out their outages.
          maxWorkers: 4,
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: serial,
          ...services,
          fileParallelism: false,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
