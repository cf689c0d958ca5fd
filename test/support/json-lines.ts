/** The JSON log lines among a process's captured output (chunks may hold several lines). */
export function jsonLines(lines: string[]): Record<string, unknown>[] {
  return lines
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
