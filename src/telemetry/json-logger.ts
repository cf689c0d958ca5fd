/**
 * The worker's log: one JSON object per line on stdout (`time`, `level`, `msg`, then the SDK's
 * attributes: namespace, task queue, workflow and activity ids, the request id). Errors are
 * reduced to their name and message.
 */
import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';

const levels: Record<string, LogLevel | undefined> = {
  fatal: 'ERROR',
  error: 'ERROR',
  warn: 'WARN',
  info: 'INFO',
  debug: 'DEBUG',
  trace: 'TRACE',
};

function plain(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}

/** One log entry as its JSON line. */
function jsonLine(entry: LogEntry): string {
  const meta = Object.fromEntries(
    Object.entries(entry.meta ?? {}).map(([key, value]) => [key, plain(value)]),
  );
  const time = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
  return `${JSON.stringify({ time, level: entry.level.toLowerCase(), msg: entry.message, ...meta })}\n`;
}

/** A logger at the configured level (`silent`: none), writing to `write` (stdout by default). */
export function jsonLogger(
  level: string,
  write: (line: string) => void = (line) => process.stdout.write(line),
): DefaultLogger {
  const threshold = levels[level];
  return new DefaultLogger(threshold ?? 'ERROR', (entry) => {
    if (threshold !== undefined) write(jsonLine(entry));
  });
}
