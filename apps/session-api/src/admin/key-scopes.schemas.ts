import { z } from 'zod';

/** `GET /v1/key`: the scopes of the key the request carries (`admin` implies the others). */
export const keyScopesAnswer = z
  .object({ scopes: z.array(z.enum(['ingest', 'read', 'admin'])) })
  .meta({ id: 'KeyScopes', example: { scopes: ['ingest', 'read'] } });
