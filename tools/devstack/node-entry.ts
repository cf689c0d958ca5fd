/**
 * How the project's own processes start a TypeScript entry: through tsx, or, in a test run that
 * compiled the tree (tools/test/compiled-tree.ts), its JavaScript on plain Node.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { projectRoot } from './stack-config.js';

/** Set by the test run in the environment of its processes: where its compiled tree is. */
export const compiledTreeVariable = 'GATE_TEST_COMPILED';

/** A source file's compiled JavaScript, when the run has a compiled tree that holds it. */
export function compiledPath(
  source: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const compiledTree = env[compiledTreeVariable];
  if (!compiledTree) return undefined;
  const compiled = path
    .join(compiledTree, path.relative(projectRoot, source))
    .replace(/\.ts$/, '.js');
  return existsSync(compiled) ? compiled : undefined;
}

/**
 * The arguments that start a TypeScript entry of this project on its compiled JavaScript, when
 * the run has a compiled tree: `process.argv[1]` still names the source, which the entry's "am
 * I the main module" check compares with its own URL.
 */
export function compiledEntryArgs(
  source: string,
  env: NodeJS.ProcessEnv = process.env,
): string[] | undefined {
  const compiled = compiledPath(source, env);
  if (!compiled) return undefined;
  const naming = `process.argv[1] = ${JSON.stringify(source)};`;
  return [
    '--enable-source-maps',
    '--import',
    `data:text/javascript,${encodeURIComponent(naming)}`,
    compiled,
  ];
}

/**
 * How to start a TypeScript entry of this project as a Node process: compiled (above), else
 * through tsx. The environment decides: the one the process is started with.
 */
export function nodeEntryArgs(source: string, env: NodeJS.ProcessEnv = process.env): string[] {
  // tsx by path, so the entry starts from any working directory.
  return (
    compiledEntryArgs(source, env) ?? [
      '--import',
      // require.resolve, which every loader has (vitest's has no import.meta.resolve).
      createRequire(import.meta.url).resolve('tsx'),
      source,
    ]
  );
}
