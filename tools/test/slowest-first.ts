/**
 * vitest's order of files, slowest first, so a long file never starts last while the other
 * processes sit idle: by this tree's last run (vitest's own cache), else, in a fresh clone, by
 * `test/durations.json` (a full run's seconds by file, kept with the code). Files never measured
 * go first of all; the projects' group order comes before any of this.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const keptFile = 'test/durations.json';

export default class SlowestFirst extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const keptPath = path.join(root, keptFile);
    const kept = existsSync(keptPath)
      ? (JSON.parse(readFileSync(keptPath, 'utf8')) as Record<string, number>)
      : {};
    const took = (spec: TestSpecification) => {
      const file = path.relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${file}`);
      const seconds = kept[file];
      return cached?.duration ?? (seconds === undefined ? Infinity : seconds * 1000);
    };
    const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return Promise.resolve(
      [...files].sort((a, b) => group(a) - group(b) || compare(took(b), took(a))),
    );
  }
}

const compare = (a: number, b: number) => (a === b ? 0 : a < b ? -1 : 1);
