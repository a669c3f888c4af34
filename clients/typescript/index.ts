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

type Call<T> = Promise<{ data?: T; error?: unknown; response: Response }>;

/** What the service answered: the body, or the status and the spec's error message. */
export type Answer<T> = { ok: true; data: T } | { ok: false; status: number; message: string };

export async function answer<T>(call: Call<T>): Promise<Answer<T>> {
  const { data, error, response } = await call;
  if (response.ok && error === undefined) return { ok: true, data: data as T };
  const message = (error as { message?: string } | undefined)?.message ?? response.statusText;
  return { ok: false, status: response.status, message };
}

/** The answer's body, or an Error naming the status and the service's error message. */
export async function answered<T>(call: Call<T>): Promise<T> {
  const result = await answer(call);
  if (!result.ok) throw new Error(`${result.status}: ${result.message}`);
  return result.data;
}
