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

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

const fullName = (repo: unknown): string | null | undefined => {
  if (repo === null) return null;
  const name = asRecord(repo)?.full_name;
  return typeof name === 'string' ? name : undefined;
};

/**
 * A run source from a GitHub `pull_request` webhook payload, as a runner receives it. Nothing is
 * assumed: a deleted fork (`head.repo: null`) stays null, a missing field stays missing, and
 * `trustTierOf` turns both into read_only.
 */
export function sourceFromPullRequestEvent(payload: unknown): RunSource {
  const event = asRecord(payload);
  const pr = asRecord(event?.pull_request);
  const head = asRecord(pr?.head);
  const base = asRecord(pr?.base);
  const number = pr?.number;
  const sender = asRecord(event?.sender)?.login;
  const baseRepo = fullName(base?.repo) ?? fullName(event?.repository) ?? undefined;
  const headRepo = head && 'repo' in head ? fullName(head.repo) : undefined;
  return {
    kind: 'pull_request',
    ...(baseRepo && { repository: baseRepo }),
    pull_request: {
      ...(baseRepo !== undefined && { base_repo: baseRepo }),
      ...(headRepo !== undefined && { head_repo: headRepo }),
      ...(typeof number === 'number' && Number.isInteger(number) && number >= 0 && { number }),
      ...(typeof sender === 'string' && { sender: sender.slice(0, 256) }),
    },
  };
}
