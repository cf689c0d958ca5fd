import { z } from 'zod';
import { anyObject, type MediaAnswer } from '../route-schemas.js';
import { modelRequestBodyLimit } from './model-requests.js';

/** The provider's answer as it came (relayed, never re-serialised): its own API documents it. */
const providerAnswer = (description: string): MediaAnswer => ({
  description,
  content: {
    'application/json': { schema: anyObject },
    'text/event-stream': { schema: z.string() },
  },
});

/**
 * What every route of the model proxies declares alike: the model request's body limit, the
 * run's session token as its caller, and the provider's answer as its 200.
 */
export const proxiedModelRoute = (operationId: string, summary: string, answer: string) =>
  ({
    bodyLimit: modelRequestBodyLimit,
    config: { caller: 'model_key' },
    schema: {
      operationId,
      summary,
      tags: ['model access'],
      response: { 200: providerAnswer(answer) },
    },
  }) as const;
