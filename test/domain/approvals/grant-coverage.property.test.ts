/**
 * A property over generated calls: whatever a grant covers is, by the gate's own reading, the
 * approved call up to the arguments its tool's list says change nothing, and for "this path, any
 * content" up to its content as well.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import {
  fileTools,
  inertArguments,
  offeredScopes,
  scopeOutcome,
  type GrantScope,
} from '../../../src/domain/approvals/grant-scopes.js';
import { canonicalJson } from '../../../src/domain/ledger/digest.js';

interface Call {
  tool: string;
  arguments: Record<string, unknown>;
}

const programs = ['npm', 'pnpm', 'yarn', 'cargo', 'make', 'git', 'rm', 'python3', 'node', 'ls'];
const words = [
  'test',
  'run',
  'dev',
  'bench',
  'status',
  '--',
  '--ci',
  '-f',
  '-rf',
  'a.log',
  '/home',
  '--reporter=dot',
  '--prefix',
  '--script-shell=/tmp/x',
  '--outputFile=/etc/x',
  '../up',
  'src/a.ts',
  '-C',
  '.',
];
const odd = ['$X', '"a b"', "'c'", '~', '*.ts', '$(id)', '`id`', '>', 'f', '|', 'sh', ';', '&&'];
const prefixes = ['', '', '', 'FOO=1 ', './', 'sudo ', 'env ', '\\', '/usr/bin/', 'timeout 9 '];

const scripts = ['npm test', 'npm run dev', 'pnpm test', 'yarn run lint', 'cargo test', 'npm ci'];
const plainLine = fc
  .tuple(
    fc.oneof(fc.constantFrom(...programs), fc.constantFrom(...scripts)),
    fc.array(fc.constantFrom(...words), { maxLength: 4 }),
  )
  .map(([program, rest]) => [program, ...rest].join(' '));
const extras = fc.record(
  {
    description: fc.constantFrom('run it', 'x'),
    timeout: fc.constantFrom(1000, 60_000),
    dangerouslyDisableSandbox: fc.boolean(),
    run_in_background: fc.boolean(),
  },
  { requiredKeys: [] },
);
const approvedBash = fc
  .tuple(plainLine, extras)
  .map(([command, more]): Call => ({ tool: 'Bash', arguments: { command, ...more } }));

/** A line changed the ways an agent might: words added, dropped or changed, odd syntax. */
const changedLine = (line: string) =>
  fc.oneof(
    fc.constant(line),
    fc
      .array(fc.constantFrom(...words, ...odd), { minLength: 1, maxLength: 3 })
      .map((more) => `${line} ${more.join(' ')}`),
    fc
      .array(fc.constantFrom(...words), { minLength: 1, maxLength: 3 })
      .map((more) => `${line.split(' -- ')[0] ?? line} -- ${more.join(' ')}`),
    fc.constantFrom(...prefixes).map((prefix) => `${prefix}${line}`),
    fc.tuple(fc.nat(), fc.constantFrom(...words, ...odd)).map(([at, word]) => {
      const parts = line.split(' ');
      parts.splice(at % (parts.length + 1), 0, word);
      return parts.join(' ');
    }),
    fc.nat().map((at) => {
      const parts = line.split(' ');
      parts.splice(at % parts.length, 1);
      return parts.join(' ');
    }),
    plainLine,
  );

const candidate = (approved: Call) =>
  fc
    .tuple(
      fc.constantFrom(approved.tool, approved.tool, approved.tool, 'Edit', 'mcp__x__run'),
      typeof approved.arguments.command === 'string'
        ? changedLine(approved.arguments.command).map((command) => ({ command }))
        : fc.constant({}),
      fc.oneof(fc.constant({}), extras),
      fc.boolean(),
    )
    .map(([tool, command, more, keep]): Call => {
      const base = keep ? { ...approved.arguments } : {};
      return { tool, arguments: { ...base, ...more, ...command } };
    });

const paths = ['/repo/ci.yml', '/repo/a.ts', '/home/dev/.aws/credentials', 'a.txt'];
const approvedFile = fc.oneof(
  fc
    .tuple(fc.constantFrom(...paths), fc.constantFrom('ok', 'run: curl x | sh'))
    .map(([file_path, content]): Call => ({ tool: 'Write', arguments: { file_path, content } })),
  fc
    .tuple(fc.constantFrom(...paths), fc.constantFrom('a', 'b'), fc.constantFrom('c', 'd'))
    .map(([file_path, old_string, new_string]): Call => ({
      tool: 'Edit',
      arguments: { file_path, old_string, new_string },
    })),
);
const fileCandidate = (approved: Call) =>
  fc
    .tuple(
      fc.constantFrom(approved.tool, approved.tool, 'Write', 'Edit', 'mcp__fs__delete_file'),
      fc.constantFrom(approved.arguments.file_path, approved.arguments.file_path, ...paths),
      fc.oneof(
        fc.constant(approved.arguments),
        fc.record(
          {
            content: fc.constantFrom('ok', 'other'),
            old_string: fc.constantFrom('a', 'b'),
            new_string: fc.constantFrom('c', 'd'),
            mode: fc.constant('append'),
          },
          { requiredKeys: [] },
        ),
      ),
    )
    .map(([tool, file_path, more]): Call => ({ tool, arguments: { ...more, file_path } }));

const without = (args: Record<string, unknown>, free: readonly string[]) =>
  Object.fromEntries(Object.entries(args).filter(([key]) => !free.includes(key)));
const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

/** The gate's own reading of a covered call against the call its grant was given for. */
function assertOnlyWhatWasApproved(approved: Call, scope: GrantScope, covered: Call) {
  const inert = inertArguments[approved.tool] ?? [];
  assert.equal(covered.tool, approved.tool, 'the same tool');
  if (scope.kind === 'exact') {
    assert.ok(same(without(covered.arguments, inert), without(approved.arguments, inert)));
    return;
  }
  const file = fileTools[approved.tool];
  assert.ok(file, 'any content is offered only for a file tool');
  const free = [...inert, ...file.content];
  assert.ok(same(without(covered.arguments, free), without(approved.arguments, free)));
}

const settings = { seed: 31_0417, numRuns: 4000 };

const pairs = (approved: fc.Arbitrary<Call>, candidates: (a: Call) => fc.Arbitrary<Call>) =>
  approved.chain((a) =>
    fc.tuple(fc.constant(a), fc.array(candidates(a), { minLength: 4, maxLength: 4 })),
  );

describe('what a grant covers', () => {
  for (const [name, generated] of [
    ['a Bash call', pairs(approvedBash, candidate)],
    ['a file call', pairs(approvedFile, fileCandidate)],
  ] as const) {
    test(`${name} covered by a grant is the approved call up to its tool's inert arguments`, () => {
      const covered = new Map<string, number>();
      fc.assert(
        fc.property(generated, ([call, others]) => {
          for (const scope of offeredScopes(call.tool, call.arguments)) {
            for (const other of others) {
              if (scopeOutcome(scope, other) !== 'match') continue;
              covered.set(scope.kind, (covered.get(scope.kind) ?? 0) + 1);
              assertOnlyWhatWasApproved(call, scope, other);
            }
          }
        }),
        settings,
      );
      // The property says something: every wider scope covered calls other than its own.
      const kinds = name === 'a Bash call' ? ['exact'] : ['exact', 'any_content'];
      for (const kind of kinds)
        assert.ok(
          (covered.get(kind) ?? 0) > 100,
          `${kind}: ${covered.get(kind) ?? 0} covered calls`,
        );
    });
  }
});
