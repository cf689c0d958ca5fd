import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';

/** The project's root: every relative path in temporal-dev.yaml is relative to it. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Linux hands ports 32768–60999 to clients' outgoing connections: a server port there can be
 * some client's local port at the moment the stack starts, and then the server cannot bind.
 */
export const ephemeralPorts = { first: 32768, last: 60999 };
const port = z
  .number()
  .int()
  .min(1)
  .max(65535)
  .refine((p) => p < ephemeralPorts.first || p > ephemeralPorts.last, {
    error: `must be outside ${ephemeralPorts.first}–${ephemeralPorts.last}, the range the system lends to clients' connections`,
  });
const relativePath = z
  .string()
  .min(1)
  .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), {
    error: 'must be a path inside the project, relative to its root',
  });
const identifier = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,127}$/, 'must be a plain name');

const stackConfigSchema = z
  .object({
    temporal: z
      .object({
        cli_version: z.string().regex(/^\d+\.\d+\.\d+$/, 'must be a version such as 1.5.1'),
        ip: z.ipv4(),
        port,
        ui_port: port,
        namespace: identifier,
        task_queue: identifier,
        sqlite_file: relativePath,
        sqlite_pragmas: z.record(
          z.enum(['journal_mode', 'synchronous']),
          z.string().regex(/^[a-z]+$/),
        ),
        dynamic_config: z.record(z.string().min(1), z.union([z.boolean(), z.number(), z.string()])),
        search_attributes: z.record(
          z.string().regex(/^[A-Za-z][A-Za-z0-9]*$/),
          z.enum(['Keyword', 'Text', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList']),
        ),
      })
      .strict(),
    postgres: z
      .object({
        port,
        database: z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'must be a plain database name'),
        data_dir: relativePath,
      })
      .strict(),
    api: z.object({ host: z.ipv4(), port }).strict(),
    test: z
      .object({
        temporal_port: port,
        temporal_ui_port: port,
        sqlite_file: relativePath,
        postgres_port: port,
        postgres_data_dir: relativePath,
        api_port: port,
      })
      .strict(),
  })
  .strict();

export type StackConfig = z.infer<typeof stackConfigSchema>;

/** The values one stack (dev or test) runs with, paths made absolute. */
export interface StackProfile {
  name: 'dev' | 'test';
  cliVersion: string;
  temporal: {
    ip: string;
    port: number;
    uiPort: number;
    namespace: string;
    taskQueue: string;
    sqliteFile: string;
    sqlitePragmas: Record<string, string>;
    dynamicConfig: Record<string, boolean | number | string>;
    searchAttributes: Record<string, string>;
  };
  postgres: { port: number; database: string; dataDir: string };
  api: { host: string; port: number };
}

export class StackConfigError extends Error {
  override name = 'StackConfigError';
}

/** The setting that moves each port of a profile: what a person changes when one is taken. */
export function portSetting(
  profile: Pick<StackProfile, 'name'>,
  port: 'postgres' | 'temporal' | 'temporal_ui' | 'api',
): string {
  if (profile.name === 'test') {
    const key = {
      postgres: 'postgres_port',
      temporal: 'temporal_port',
      temporal_ui: 'temporal_ui_port',
      api: 'api_port',
    }[port];
    return `test.${key} in temporal-dev.yaml, or another GATE_TEST_SLOT`;
  }
  const key = {
    postgres: 'postgres.port',
    temporal: 'temporal.port',
    temporal_ui: 'temporal.ui_port',
    api: 'api.port',
  }[port];
  return `${key} in temporal-dev.yaml`;
}

export function parseStackConfig(text: string, source = 'temporal-dev.yaml'): StackConfig {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    throw new StackConfigError(`${source} is not valid YAML: ${(err as Error).message}`);
  }
  const result = stackConfigSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map(
      (issue) => `  ${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new StackConfigError(`${source} has wrong values:\n${lines.join('\n')}`);
  }
  return result.data;
}

export function loadStackConfig(file = path.join(projectRoot, 'temporal-dev.yaml')): StackConfig {
  return parseStackConfig(readFileSync(file, 'utf8'), path.basename(file));
}

/**
 * GATE_TEST_SLOT=n (1 to 9) moves a test stack's ports by 10·n and its data folder to a
 * sibling, so several test runs can share one machine.
 */
function testSlot(): number {
  const slot = process.env.GATE_TEST_SLOT;
  if (slot === undefined || slot === '' || slot === '0') return 0;
  if (!/^[1-9]$/.test(slot))
    throw new StackConfigError('GATE_TEST_SLOT must be a digit from 1 to 9');
  return Number(slot);
}

export function stackProfile(config: StackConfig, name: 'dev' | 'test'): StackProfile {
  const abs = (p: string) => path.join(projectRoot, p);
  const t = config.temporal;
  const slot = name === 'test' ? testSlot() : 0;
  const test =
    name === 'test'
      ? {
          ...config.test,
          temporal_port: config.test.temporal_port + 10 * slot,
          temporal_ui_port: config.test.temporal_ui_port + 10 * slot,
          postgres_port: config.test.postgres_port + 10 * slot,
          api_port: config.test.api_port + 10 * slot,
          sqlite_file: slot
            ? config.test.sqlite_file.replace(/^(.*?)\/([^/]+)\//, `$1/$2-${slot}/`)
            : config.test.sqlite_file,
          postgres_data_dir: slot
            ? config.test.postgres_data_dir.replace(/^(.*?)\/([^/]+)\//, `$1/$2-${slot}/`)
            : config.test.postgres_data_dir,
        }
      : undefined;
  return {
    name,
    cliVersion: t.cli_version,
    temporal: {
      ip: t.ip,
      port: test?.temporal_port ?? t.port,
      uiPort: test?.temporal_ui_port ?? t.ui_port,
      namespace: t.namespace,
      taskQueue: t.task_queue,
      sqliteFile: abs(test?.sqlite_file ?? t.sqlite_file),
      sqlitePragmas: t.sqlite_pragmas,
      dynamicConfig: t.dynamic_config,
      searchAttributes: t.search_attributes,
    },
    postgres: {
      port: test?.postgres_port ?? config.postgres.port,
      database: config.postgres.database,
      dataDir: abs(test?.postgres_data_dir ?? config.postgres.data_dir),
    },
    api: { host: config.api.host, port: test?.api_port ?? config.api.port },
  };
}
