import { z } from 'zod';

export type TrustTier = 'trusted' | 'read_only';

const repoName = z.string().max(256);

/**
 * Where a run comes from. A pull request's fields are all optional on purpose: a missing or
 * hidden head repository is not a validation error, it is the reason for read_only.
 */
export const runSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('manual'), repository: repoName.optional() }).strict(),
  z.object({ kind: z.literal('schedule'), repository: repoName.optional() }).strict(),
  z
    .object({
      kind: z.literal('pull_request'),
      repository: repoName.optional(),
      pull_request: z
        .object({
          base_repo: repoName.nullable().optional(),
          head_repo: repoName.nullable().optional(),
          number: z.number().int().min(0).optional(),
          sender: z.string().max(256).optional(),
        })
        .strict()
        .optional(),
    })
    .strict(),
]);
export type RunSource = z.infer<typeof runSourceSchema>;

const normaliseRepo = (name: string) => name.trim().toLowerCase();

/**
 * A pull request is trusted only when its head repository is known and is its base repository.
 * A fork, a deleted fork (head null), a hidden or missing head: read_only. Unclear means read_only.
 */
export function trustTierOf(source: RunSource): TrustTier {
  if (source.kind !== 'pull_request') return 'trusted';
  const pr = source.pull_request;
  const base = pr?.base_repo ?? source.repository;
  const head = pr?.head_repo;
  if (typeof base !== 'string' || typeof head !== 'string') return 'read_only';
  if (normaliseRepo(base) === '' || normaliseRepo(head) === '') return 'read_only';
  return normaliseRepo(base) === normaliseRepo(head) ? 'trusted' : 'read_only';
}
