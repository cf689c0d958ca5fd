import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createRunProfile,
  removeRunProfile,
  runProfiles,
  type ProfileAdmin,
} from '../../application/run-profiles.js';
import { ForbiddenError } from '../../domain/errors.js';
import type { Member } from '../../store/members.js';
import { profileChoices } from '../../store/queries/run-profile-choices.js';
import type { ApiContext } from '../context.js';
import { empty, media } from '../route-schemas.js';
import { toLoginAnswer, visitorOf } from './admission.js';
import { sendPage, webFormTags as tags } from './layout.js';
import { runProfilesPage } from './run-profiles-page.js';

const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
/** A checked box of the form: `bundle.<id>` or `connection.<id>`. */
const checkedBox = new RegExp(`^(bundle|connection)\\.(${uuid})$`);

const formFields = new Set([
  'csrf',
  'name',
  'description',
  'policy_id',
  'max_tokens',
  'autonomy',
  'trust_tier',
]);

/** The new-profile form: its fields, and one checkbox per bundle or connection picked. */
const runProfileForm = z
  .object({
    csrf: z.string(),
    name: z.string().trim().min(1).max(100),
    description: z.string().max(1000).default(''),
    policy_id: z.uuid(),
    max_tokens: z.coerce.number().int().min(1).max(1_000_000_000),
    autonomy: z.enum(['supervised', 'autonomous']),
    trust_tier: z.enum(['trusted', 'read_only']),
  })
  .catchall(z.literal('on'))
  .superRefine((form, ctx) => {
    for (const key of Object.keys(form)) {
      if (!formFields.has(key) && !checkedBox.test(key)) {
        ctx.addIssue({ code: 'custom', message: 'unknown field', path: [key] });
      }
    }
  });
const deleteForm = z.object({ csrf: z.string() }).strict();
const profileParams = z.object({ id: z.uuid() }).strict();

function picked(form: Record<string, unknown>, kind: 'bundle' | 'connection'): string[] {
  return Object.keys(form).flatMap((key) => {
    const match = checkedBox.exec(key);
    return match?.[1] === kind && match[2] ? [match[2]] : [];
  });
}

/** Profiles are an admin's: anyone else signed in is told so. */
function adminOf(request: FastifyRequest): { member: Member; admin: ProfileAdmin } {
  const { member } = visitorOf(request);
  if (member.role !== 'admin') {
    throw new ForbiddenError('run profiles are managed by the workspace’s admins');
  }
  return { member, admin: { workspace: member.workspace_id } };
}

const config = { caller: 'browser' } as const;
const form = { consumes: ['application/x-www-form-urlencoded'] };

/** The admin's page of the workspace's run profiles: list, create, delete. */
export function runProfilePageRoutes(server: FastifyInstance, ctx: ApiContext) {
  const web = server.withTypeProvider<ZodTypeProvider>();
  async function show(request: FastifyRequest, status: number, notice?: string) {
    const { member, admin } = adminOf(request);
    const profiles = await runProfiles(ctx.pool, admin, member.workspace_id);
    const choices = await profileChoices(ctx.pool, member.workspace_id);
    return { status, page: runProfilesPage(visitorOf(request), profiles, choices, notice) };
  }

  web.get(
    '/run-profiles',
    {
      config,
      schema: {
        operationId: 'runProfilesPage',
        summary: "The workspace's run profiles (admins)",
        tags,
        response: { 200: media('the page'), 303: toLoginAnswer, 403: media('not an admin') },
      },
    },
    async (request, reply) => {
      const { status, page } = await show(request, 200);
      return sendPage(reply, status, page);
    },
  );

  web.post(
    '/run-profiles',
    {
      config,
      schema: {
        operationId: 'createRunProfileForm',
        summary: 'Create a run profile from the form (admins)',
        tags,
        ...form,
        body: runProfileForm,
        response: {
          201: media('created; the list'),
          400: media('a field is not valid, named'),
          403: media('not an admin'),
        },
      },
    },
    async (request, reply) => {
      const { member, admin } = adminOf(request);
      const body = request.body;
      await createRunProfile(ctx.pool, admin, member.workspace_id, {
        name: body.name,
        description: body.description,
        policy_id: body.policy_id,
        tools: {
          bundles: picked(body, 'bundle'),
          connections: picked(body, 'connection').map((id) => ({ id })),
        },
        max_tokens: body.max_tokens,
        autonomy: body.autonomy,
        trust_tier: body.trust_tier,
        model_provider_id: null,
      });
      const { page } = await show(request, 201, `Profile ${body.name} created.`);
      return sendPage(reply, 201, page);
    },
  );

  web.post(
    '/run-profiles/:id/delete',
    {
      config,
      schema: {
        operationId: 'deleteRunProfileForm',
        summary: 'Delete a run profile (admins); its runs keep running',
        tags,
        ...form,
        params: profileParams,
        body: deleteForm,
        response: { 303: empty('deleted; back to the list'), 403: media('not an admin') },
      },
    },
    async (request, reply) => {
      const { member, admin } = adminOf(request);
      await removeRunProfile(ctx.pool, admin, member.workspace_id, request.params.id);
      return reply.redirect('/run-profiles', 303);
    },
  );
}
