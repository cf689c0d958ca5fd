/**
 * How long a standing approval lasts: null for the rest of its run, else seconds. The form offers
 * these, in this order, the first chosen when the page opens: approving grants nothing more
 * unless the approver picks a length.
 */
export const grantLengths: readonly { value: string; for_s: number | null | undefined }[] = [
  { value: 'none', for_s: undefined },
  { value: 'run', for_s: null },
  { value: '900', for_s: 900 },
  { value: '3600', for_s: 3600 },
  { value: '28800', for_s: 28_800 },
];

const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A length as a person reads it: `for 15 minutes`, `for the rest of this run`. */
export function lengthText(forS: number | null | undefined): string {
  if (forS === undefined) return 'no: only this call';
  if (forS === null) return 'for the rest of this run';
  if (forS % 3600 === 0) return `for ${unit(forS / 3600, 'hour')}`;
  if (forS % 60 === 0) return `for ${unit(forS / 60, 'minute')}`;
  return `for ${unit(forS, 'second')}`;
}
