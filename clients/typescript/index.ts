/**
 * The service's typed client: openapi-fetch over the types generated from
 * its OpenAPI document (`generated/api.d.ts`, written by
 * scripts/generate-client.mjs; never edited). Every path, parameter, body
 * and answer is typed: a call the API would refuse does not compile.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/api';

export type { components, paths };
export type Schemas = components['schemas'];
export type DesClient = Client<paths>;

/**
 * A client of the service at `base` (its address, with or without the
 * `/api/v2` prefix every path carries) that presents `key`.
 */
export function createDesClient(options: { base: string; key: string }): DesClient {
  const client = createClient<paths>({ baseUrl: options.base.replace(/\/api\/v2\/?$/, '') });
  client.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `Bearer ${options.key}`);
      return request;
    },
  });
  return client;
}

/** The answer's body, or an Error naming the status and the error body the service sent. */
export async function answered<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok)
    throw new Error(`${response.status} ${response.url}: ${JSON.stringify(error)}`);
  return data as T;
}
