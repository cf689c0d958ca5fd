/**
 * Beside vitest's own reporter: the run's counts with skipped and todo tests always shown, the
 * notes tests leave (`annotate`), warnings loudest, and a failed run when any test is skipped or
 * todo without saying why (`ctx.skip('why')`): a test that does not run proves nothing. Last,
 * when each project's files ran, from the run's start: where the run's time went.
 */
import { relative } from 'node:path';
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

const yellow = (text: string) => `\x1b[33m${text}\x1b[39m`;
const red = (text: string) => `\x1b[31m${text}\x1b[39m`;

function* testsOf(modules: readonly TestModule[]): Generator<TestCase> {
  for (const module of modules) yield* module.children.allTests();
}

export default class SummaryReporter implements Reporter {
  /** A run filtered by name (`-t`) skips what the filter leaves out: nothing to explain there. */
  private nameFiltered = false;
  private readonly startedAt = Date.now();
  /** Per project: its files, when its first one started and its last one ended. */
  private readonly spans = new Map<string, { files: number; from: number; to: number }>();

  onInit(vitest: Vitest): void {
    this.nameFiltered = vitest.config.testNamePattern !== undefined;
  }

  onTestModuleStart(module: TestModule): void {
    const now = Date.now();
    const span = this.spans.get(module.project.name) ?? { files: 0, from: now, to: now };
    span.files += 1;
    this.spans.set(module.project.name, span);
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(module.project.name);
    if (span) span.to = Date.now();
  }

  onTestRunEnd(modules: readonly TestModule[]): void {
    const counts = { passed: 0, failed: 0, skipped: 0, todo: 0 };
    const unexplained: TestCase[] = [];
    const notes: string[] = [];
    for (const test of testsOf(modules)) {
      const result = test.result();
      const todo = test.options.mode === 'todo';
      if (todo) counts.todo += 1;
      else if (result.state === 'passed') counts.passed += 1;
      else if (result.state === 'failed') counts.failed += 1;
      else counts.skipped += 1;
      const reason = result.state === 'skipped' ? result.note : undefined;
      if ((todo || result.state === 'skipped') && !reason) unexplained.push(test);
      const where = `${relative(process.cwd(), test.module.moduleId)} › ${test.fullName}`;
      for (const { type, message } of test.annotations()) {
        notes.push(
          type === 'warning'
            ? yellow(`⚠ NOT CHECKED ${where}\n  ${message}`)
            : `ℹ ${where}: ${message}`,
        );
      }
    }
    const out = (line: string) => process.stdout.write(`${line}\n`);
    if (notes.length > 0) out(`\n${notes.join('\n')}`);
    out(`\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
    const filtered = this.nameFiltered ? ' (a name filter left tests out)' : '';
    out(`todo: ${counts.todo}; skipped or todo without a reason: ${unexplained.length}${filtered}`);
    const seconds = (ms: number) => `${((ms - this.startedAt) / 1000).toFixed(1)} s`;
    for (const [name, { files, from, to }] of this.spans)
      out(`project ${name}: ${files} files, from ${seconds(from)} to ${seconds(to)}`);
    if (unexplained.length > 0 && !this.nameFiltered) {
      for (const test of unexplained)
        out(red(`✖ not run, no reason given: ${test.module.moduleId} › ${test.fullName}`));
      process.exitCode = 1;
    }
  }
}
