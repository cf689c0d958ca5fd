import type { FastifyInstance } from 'fastify';
import { Problem } from '../problem.js';

/** Our forms are a token, a choice and a short reason: anything bigger is not one of them. */
const formBodyLimitBytes = 16 * 1024;

/** A form's fields; a field sent twice is refused rather than guessed at. */
export function parseForm(body: string): Record<string, string> {
  // No prototype: a field named __proto__ stays a field.
  const fields = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(fields, name))
      throw new Problem(400, `the form field "${name}" was sent twice`);
    fields[name] = value;
  }
  return fields;
}

/**
 * The web pages accept HTML form posts and nothing else. This replaces the inherited parsers
 * only inside the web plugin, so the JSON API still refuses form bodies with 415.
 */
export function acceptFormBodies(web: FastifyInstance): void {
  web.removeAllContentTypeParsers();
  web.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formBodyLimitBytes },
    (_request, body, done) => {
      try {
        done(null, parseForm(body as string));
      } catch (err) {
        done(err as Error, undefined);
      }
    },
  );
}

/** The posted form, or no fields at all when the body was empty. */
export function formOf(body: unknown): Record<string, string> {
  return typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
}
