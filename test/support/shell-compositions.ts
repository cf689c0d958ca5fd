import fc from 'fast-check';

/** Quotes any text as one shell word. */
export const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** Text with the characters that break naive matchers: line breaks, quotes, separators. */
export const oddText = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\n', '\r', '\u2028', '\u2029', '\t', ' ', ';', '&', '|', '$', '`', '"', "'"),
    fc.constantFrom('(', ')', '{', '}', '<', '>', '*', '?', '\\', '#', '~', '!', '='),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

/** Spellings of `rm -rf` that run it. */
export const rmSpellings = fc.constantFrom(
  'rm -rf /',
  '/bin/rm -fr x',
  '\\rm -r -f y',
  '"rm" -rf z',
  "r'm' -rf a",
  "$'rm' -rf /",
  'sudo rm -rf /',
  'sudo -u root rm -rf /',
  'env A=1 rm -rf /',
  'FOO=1 rm -rf b',
  'nice -n 1 rm -rf c',
  'command rm -rf d',
  'exec rm -rf e',
  'timeout 1 rm -rf /',
  'xargs rm -rf',
  'sudo FOO=1 rm -rf /',
  'env a-b=1 rm -rf /',
);

/** Commands an allow of `ls`, `echo`, `cat` and `true` covers, with odd arguments. */
export const allowedCommand = fc.oneof(
  fc.constantFrom('ls', 'ls -la', 'true', 'cat README.md', 'echo done'),
  oddText.map((t) => `echo ${shellQuote(t)}`),
  oddText.map((t) => `cat -- ${shellQuote(t)}`),
);

/** Commands that no such allow covers. */
export const otherCommand = fc.oneof(
  fc.constantFrom('curl https://example.com', 'git push', 'make deploy', 'python3 x.py'),
  rmSpellings,
  oddText.map((t) => `npm run ${shellQuote(t)}`),
);

type Compose = (inner: string, other: string, text: string) => string;

/** Every way the issue lists to put one command line inside another, so that it still runs. */
const compositions: Compose[] = [
  (a, b) => `${a}; ${b}`,
  (a, b) => `${b}; ${a}`,
  (a, b) => `${a} && ${b}`,
  (a, b) => `${b} && ${a}`,
  (a, b) => `${b} || ${a}`,
  (a, b) => `${b} | ${a}`,
  (a, b) => `${a} | ${b}`,
  (a, b) => `${b} & ${a}`,
  (a, b) => `${b}\n${a}`,
  (a, b) => `${b}\r\n${a}`,
  (a) => `(${a})`,
  (a) => `{ ${a}; }`,
  (a, b) => `if ${b}; then ${a}; fi`,
  (a, b) => `if ${a}; then ${b}; fi`,
  (a, b) => `while ${b}; do ${a}; done`,
  (a) => `for x in 1 2; do ${a}; done`,
  (a) => `case x in *) ${a};; esac`,
  (a) => `! ${a}`,
  (a) => `time ${a}`,
  (a) => `echo "$(${a})"`,
  (a) => `echo $(${a})`,
  (a) => `cat <(${a})`,
  (a) => `x=$(${a})`,
  (a) => `a[$(${a})]=1`,
  (a, b) => `${b} | tee >(${a})`,
  (a) => `f() { ${a}; }`,
  (a) => `sh -c ${shellQuote(a)}`,
  (a) => `bash -c ${shellQuote(a)}`,
  (a, _b, t) => `${a} # ${t.replace(/[\r\n\u2028\u2029]/g, '')}\n`,
  (a, _b, t) => `: ${shellQuote(t)}; ${a}`,
];

/** `inner` composed with other commands, a few levels deep. */
export function composed(inner: fc.Arbitrary<string>, other: fc.Arbitrary<string>) {
  const step = fc.tuple(fc.nat({ max: compositions.length - 1 }), other, oddText);
  return fc
    .tuple(inner, fc.array(step, { maxLength: 4 }))
    .map(([start, steps]) =>
      steps.reduce((line, [kind, b, t]) => (compositions[kind] as Compose)(line, b, t), start),
    );
}
