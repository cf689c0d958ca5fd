import { z } from 'zod';
import { anyWords, pipe, stagesOf } from './command-match.js';

const word = z.string().min(1).max(256);

/** `["npm", "test", "**"]`; `["curl", "**", "|", "sh", "**"]` for a pipeline. */
export const commandPatternSchema = z
  .array(word)
  .min(1)
  .max(64)
  .refine((pattern) => stagesOf(pattern).every((stage) => stage.length > 0), {
    error: `"${pipe}" separates two commands: a pattern neither starts nor ends with it`,
  })
  .refine((pattern) => stagesOf(pattern).every((stage) => stage[0] !== anyWords), {
    error: `each command of a pattern starts with its program, not "${anyWords}"`,
  });

function segments(path: string): string[] {
  return path.split('/').slice(1);
}

/** An absolute path glob in normal form: what a normalised path can be compared with. */
export const pathGlobSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((glob) => glob.startsWith('/') || glob === '**' || glob.startsWith('**/'), {
    error: 'a path glob is absolute ("/repo/**") or starts with "**/"',
  })
  .refine(
    (glob) =>
      glob === '/' ||
      (!glob.endsWith('/') &&
        segments(`/${glob.replace(/^\//, '')}`).every((s) => s !== '' && s !== '.' && s !== '..')),
    { error: 'a path glob has no empty, "." or ".." segment and no trailing "/"' },
  );

/** The directory relative paths are resolved against. */
export const absolutePathSchema = z
  .string()
  .min(1)
  .max(4096)
  .refine((path) => path.startsWith('/') && !path.includes('\0'), {
    error: 'a base is an absolute path',
  });
