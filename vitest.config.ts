import { defineConfig } from 'vitest/config';
import SlowestFirst from './tools/test/slowest-first.js';

/**
 * Files that stop a service of their own under load and bound every answer in time: after the
 * others, beside each other only, so that the machine's load is theirs. With the serial files
 * beside them (tried, each serial file holding a lock), two suites side by side had a held call
 * of the stopped PostgreSQL fail closed past its window.
 */
const outage = ['test/**/*.outage.test.ts'];
/**
 * Files that disturb what the shared services show others (a sweep of every hold, an attempt to
 * truncate the ledger) or load them on purpose (thousands of waits): one at a time, last. The
 * load simulation runs among the others, whose answers are not bounded that tightly.
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
          name: 'services',
          include: ['test/**/*.test.ts'],
          exclude: [...outage, ...serial],
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
