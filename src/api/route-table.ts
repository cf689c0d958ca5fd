import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Keeps every route registered from now on, plugins' too, for the OpenAPI check. */
export function recordRoutes(app: FastifyInstance): void {
  const entries: RouteEntry[] = [];
  tables.set(app, entries);
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) entries.push({ method, url: route.url });
  });
}

/** The routes Fastify serves (HEAD, which it adds to each GET, left out). */
export function routeTable(app: FastifyInstance): RouteEntry[] {
  return (tables.get(app) ?? []).filter((entry) => entry.method !== 'HEAD');
}
