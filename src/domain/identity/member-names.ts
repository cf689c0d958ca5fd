/**
 * The name the gate shows a member by: given once (by the operator, or by the identity provider
 * at the person's first sign-in), then the gate's, unique in the workspace. A later claim of the
 * provider changes nothing shown, so nobody becomes another member by renaming themselves there.
 */

/** Longest name kept: a provider's claim is not trusted to be short. */
const longestName = 200;

/** A name as it is kept: its spaces collapsed, control characters dropped, bounded. */
export function keptName(wanted: string): string {
  const plain = Array.from(
    wanted
      .replace(/[\p{Cc}\p{Cf}]/gu, '')
      .replace(/\s+/g, ' ')
      .trim(),
  );
  return plain.slice(0, longestName).join('').trim() || 'unnamed';
}

/** The names tried in turn for a wanted one: itself, then `name (2)`, `name (3)`… */
export function nameCandidates(wanted: string, count: number): string[] {
  const name = keptName(wanted);
  return [name, ...Array.from({ length: count - 1 }, (_, i) => `${name} (${i + 2})`)];
}
