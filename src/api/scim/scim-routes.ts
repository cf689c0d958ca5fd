/**
 * The SCIM 2.0 service provider (RFC 7643/7644) under `/scim/v2`: the workspace's identity
 * provider creates, changes and deactivates its people (`/Users`) and groups (`/Groups`). Each
 * request carries the workspace's SCIM token; every answer is `application/scim+json`, and every
 * refusal the SCIM error shape. SCIM describes itself (`/ServiceProviderConfig`, `/Schemas`,
 * `/ResourceTypes`), so these routes are left out of the OpenAPI document.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  changeScimResource,
  createScimResource,
  deleteProvisioned,
  findProvisioned,
  listProvisioned,
  provisionedWorkspace,
  type Provisioned,
} from '../../application/scim-provisioning.js';
import {
  attributeList,
  project,
  type Projection,
} from '../../domain/identity/scim/scim-attributes.js';
import { invalidValue, ScimError } from '../../domain/identity/scim/scim-error.js';
import { parseFilter } from '../../domain/identity/scim/scim-filter.js';
import { patchOperations } from '../../domain/identity/scim/scim-patch.js';
import { listResponse, renderResource, schemaOf } from '../../domain/identity/scim/scim-render.js';
import {
  resourceSchemas,
  resourceTypeDocument,
  schemaDocument,
  serviceProviderConfig,
  type ResourceSchema,
} from '../../domain/identity/scim/scim-schemas.js';
import type { ScimKind } from '../../store/scim-resources.js';
import type { ApiContext } from '../context.js';
import { problemFor } from '../error-mapping.js';

const scimPrefix = '/scim/v2';
const scimJson = 'application/scim+json; charset=utf-8';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The workspace each admitted request provisions, set by the token check. */
const workspaces = new WeakMap<FastifyRequest, string>();

function workspaceOf(request: FastifyRequest): string {
  const workspace = workspaces.get(request);
  if (!workspace) throw new ScimError(401, 'the SCIM token is missing or not valid');
  return workspace;
}

function send(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type(scimJson).send(JSON.stringify(body));
}

function sendError(reply: FastifyReply, error: ScimError) {
  if (error.status === 401) void reply.header('www-authenticate', 'Bearer realm="scim"');
  return send(reply, error.status, error.body());
}

/** Any error as SCIM's shape: a client's fault keeps its 4xx, the rest as the API maps them. */
function scimErrorOf(error: unknown): ScimError {
  if (error instanceof ScimError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
    return new ScimError(400, 'the body is not valid JSON', 'invalidSyntax');
  }
  const problem = problemFor(error);
  return new ScimError(
    problem.status,
    problem.detail,
    problem.status === 400 ? 'invalidValue' : undefined,
  );
}

type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const key = Object.keys(query).find((k) => k.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : query[key];
  if (Array.isArray(value)) throw invalidValue(`${name} is given more than once`);
  return value;
}

function numberParam(query: Query, name: string): number | undefined {
  const value = single(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,9}$/.test(value.trim())) throw invalidValue(`${name} must be an integer`);
  return Number(value);
}

function projectionOf(source: Query, resources: readonly ResourceSchema[]): Projection {
  return {
    attributes: attributeList(single(source, 'attributes'), resources),
    excludedAttributes: attributeList(single(source, 'excludedAttributes'), resources),
  };
}

/** A SearchRequest's body (POST …/.search). */
function searchBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ScimError(400, 'a SearchRequest object is expected', 'invalidSyntax');
  }
  return body as Record<string, unknown>;
}

/** A search's parameters from the query (GET) or a SearchRequest body (POST …/.search). */
function searchOf(source: Record<string, unknown>, resources: readonly ResourceSchema[]) {
  const query: Query = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      query[name] = value.every((v) => typeof v === 'string') ? value.join(',') : undefined;
    } else if (typeof value === 'string' || typeof value === 'number') query[name] = String(value);
    else if (name !== 'schemas') throw invalidValue(`${name} is not a search parameter's value`);
  }
  const filter = single(query, 'filter');
  return {
    filter:
      filter === undefined
        ? undefined
        : parseFilter(
            filter,
            resources.map((r) => r.id),
          ),
    page: { startIndex: numberParam(query, 'startIndex'), count: numberParam(query, 'count') },
    projection: projectionOf(query, resources),
  };
}

export function scimRoutes(server: FastifyInstance, ctx: ApiContext) {
  void server.register(
    (scim, _options, done) => {
      const base = `${ctx.publicUrl.replace(/\/$/, '')}${scimPrefix}`;
      scim.addContentTypeParser(
        'application/scim+json',
        { parseAs: 'string' },
        scim.getDefaultJsonParser('error', 'error'),
      );
      scim.setErrorHandler((error, request, reply) => {
        const scimError = scimErrorOf(error);
        if (scimError.status >= 500) request.log.error({ err: error }, 'SCIM request failed');
        return sendError(reply, scimError);
      });
      scim.setNotFoundHandler((request, reply) =>
        sendError(
          reply,
          new ScimError(
            404,
            `no SCIM endpoint ${request.method} ${request.url.split('?')[0] ?? ''}`,
          ),
        ),
      );
      // The token before anything is read: a request without the workspace's token learns nothing.
      scim.addHook('onRequest', async (request) => {
        const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(request.headers.authorization ?? '');
        const workspace = await provisionedWorkspace(ctx.pool, match?.[1]);
        if (!workspace) throw new ScimError(401, 'the SCIM token is missing or not valid');
        workspaces.set(request, workspace);
      });

      const route = (
        method:
          'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | ('POST' | 'PUT' | 'PATCH' | 'DELETE')[],
        url: string,
        handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>,
      ) =>
        scim.route({
          method,
          url,
          config: { caller: 'scim' },
          schema: { hide: true },
          handler,
        });
      const notAllowed = async (request: FastifyRequest, reply: FastifyReply) =>
        sendError(reply, new ScimError(405, `${request.method} is not allowed here`));
      const discovery = (url: string, answer: (request: FastifyRequest) => unknown) => {
        route('GET', url, async (request, reply) => send(reply, 200, answer(request)));
        route(['POST', 'PUT', 'PATCH', 'DELETE'], url, notAllowed);
      };

      discovery('/ServiceProviderConfig', () =>
        serviceProviderConfig(base, `${ctx.publicUrl.replace(/\/$/, '')}/docs/operations#scim`),
      );
      discovery('/Schemas', () => ({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: resourceSchemas.length,
        startIndex: 1,
        itemsPerPage: resourceSchemas.length,
        Resources: resourceSchemas.map((r) => schemaDocument(r, base)),
      }));
      discovery('/Schemas/:id', (request) => {
        const { id } = request.params as { id: string };
        const found = resourceSchemas.find((r) => r.id === id);
        if (!found) throw new ScimError(404, `no schema ${id}`);
        return schemaDocument(found, base);
      });
      discovery('/ResourceTypes', () => ({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
        totalResults: resourceSchemas.length,
        startIndex: 1,
        itemsPerPage: resourceSchemas.length,
        Resources: resourceSchemas.map((r) => resourceTypeDocument(r, base)),
      }));
      discovery('/ResourceTypes/:id', (request) => {
        const { id } = request.params as { id: string };
        const found = resourceSchemas.find((r) => r.name === id);
        if (!found) throw new ScimError(404, `no resource type ${id}`);
        return resourceTypeDocument(found, base);
      });

      /** A resource as served, a User with the groups it is in. */
      const rendered = ({ row, groups }: Provisioned) => renderResource(row, base, groups);
      const listed = async (workspace: string, kind: ScimKind) =>
        (await listProvisioned(ctx.pool, workspace, kind)).map(rendered);
      /** One resource as the request's `attributes`/`excludedAttributes` ask. */
      const answer = (request: FastifyRequest, provisioned: Provisioned) =>
        project(
          rendered(provisioned),
          projectionOf(request.query as Query, [schemaOf(provisioned.row.kind)]),
        );

      for (const kind of ['User', 'Group'] as const) resourceRoutes(kind);

      // A search of every resource type at once (RFC 7644 §3.4.3): Users, then Groups.
      route('POST', '/.search', async (request, reply) => {
        const workspace = workspaceOf(request);
        const search = searchOf(searchBody(request.body), resourceSchemas);
        const everything = [
          ...(await listed(workspace, 'User')),
          ...(await listed(workspace, 'Group')),
        ];
        return send(reply, 200, listResponse(everything, search));
      });

      function resourceRoutes(kind: ScimKind) {
        const resource = schemaOf(kind);
        const path = resource.endpoint;

        function idOf(request: FastifyRequest): string {
          const { id } = request.params as { id: string };
          if (!uuid.test(id)) throw new ScimError(404, `${kind} ${id} not found`);
          return id.toLowerCase();
        }
        const list = async (workspace: string, search: ReturnType<typeof searchOf>) =>
          listResponse(await listed(workspace, kind), search);

        route('GET', path, async (request, reply) => {
          const workspace = workspaceOf(request);
          const search = searchOf(request.query as Record<string, unknown>, [resource]);
          return send(reply, 200, await list(workspace, search));
        });
        route('POST', `${path}/.search`, async (request, reply) => {
          const workspace = workspaceOf(request);
          return send(
            reply,
            200,
            await list(workspace, searchOf(searchBody(request.body), [resource])),
          );
        });
        route('POST', path, async (request, reply) => {
          const workspace = workspaceOf(request);
          const created = await createScimResource(ctx, workspace, kind, request.body);
          void reply.header('location', `${base}${path}/${created.row.id}`);
          return send(reply, 201, answer(request, created));
        });
        route('GET', `${path}/:id`, async (request, reply) => {
          const workspace = workspaceOf(request);
          const found = await findProvisioned(ctx.pool, workspace, kind, idOf(request));
          return send(reply, 200, answer(request, found));
        });
        route('PUT', `${path}/:id`, async (request, reply) => {
          const workspace = workspaceOf(request);
          const replaced = await changeScimResource(ctx, workspace, kind, idOf(request), {
            replace: request.body,
          });
          return send(reply, 200, answer(request, replaced));
        });
        route('PATCH', `${path}/:id`, async (request, reply) => {
          const workspace = workspaceOf(request);
          const id = idOf(request);
          const patched = await changeScimResource(ctx, workspace, kind, id, {
            patch: patchOperations(request.body),
          });
          return send(reply, 200, answer(request, patched));
        });
        route('DELETE', `${path}/:id`, async (request, reply) => {
          await deleteProvisioned(ctx, workspaceOf(request), kind, idOf(request));
          return reply.code(204).send();
        });
      }
      done();
    },
    { prefix: scimPrefix },
  );
}
