/**
 * A line diff of two texts, for an approver reading an edit: pure, bounded. The common head and
 * tail are trimmed first; the middle is aligned by longest common subsequence when small enough,
 * else shown as all removed then all added (still exact, only less tidy).
 */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

/** Cells of the alignment table beyond which the middle is not aligned. */
const alignLimit = 250_000;

const linesOf = (text: string) => (text === '' ? [] : text.split('\n'));

function aligned(before: readonly string[], after: readonly string[]): DiffLine[] {
  const n = before.length;
  const m = after.length;
  if (n * m > alignLimit) {
    return [
      ...before.map((text) => ({ kind: 'removed' as const, text })),
      ...after.map((text) => ({ kind: 'added' as const, text })),
    ];
  }
  // at(i, j): the longest common subsequence of before[i..] and after[j..], one flat table.
  const width = m + 1;
  const lengths = new Uint32Array((n + 1) * width);
  const at = (i: number, j: number) => lengths[i * width + j] ?? 0;
  for (let i = n - 1; i >= 0; i -= 1)
    for (let j = m - 1; j >= 0; j -= 1)
      lengths[i * width + j] =
        before[i] === after[j] ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[i] === after[j]) {
      out.push({ kind: 'same', text: before[i] ?? '' });
      i += 1;
      j += 1;
    } else if (i < n && (j >= m || at(i + 1, j) >= at(i, j + 1))) {
      // Removed before added where either would do, as unified diffs read.
      out.push({ kind: 'removed', text: before[i] ?? '' });
      i += 1;
    } else {
      out.push({ kind: 'added', text: after[j] ?? '' });
      j += 1;
    }
  }
  return out;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail += 1;
  const same = (text: string): DiffLine => ({ kind: 'same', text });
  return [
    ...a.slice(0, head).map(same),
    ...aligned(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...a.slice(a.length - tail).map(same),
  ];
}

/** Lines added and removed: the `+n −m` an approver reads in the list. */
export function diffCounts(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === 'added') added += 1;
    if (line.kind === 'removed') removed += 1;
  }
  return { added, removed };
}
