/** A word of a command line as the shell will pass it, when the gate can know it. */
export type ShellWord =
  | { known: true; value: string }
  /** `splits`: the shell may turn it into any number of words (`$x`, `*.ts`, `{a,b}`). */
  | { known: false; splits: boolean };

export const knownWord = (value: string): ShellWord => ({ known: true, value });
export const unknownWord = (splits: boolean): ShellWord => ({ known: false, splits });

/** The text of a word when the gate knows it, else undefined. */
export function wordText(word: ShellWord | undefined): string | undefined {
  return word?.known ? word.value : undefined;
}
