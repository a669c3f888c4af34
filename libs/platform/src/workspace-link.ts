import type { Request } from 'express';
import { isoMicros } from '#des/kernel';

/** Where the evidence workspace is served (ADR 0023). */
export const WORKSPACE_PATH = '/ui';
/** The express setting holding DES_PUBLIC_URL, set where the HTTP app is made. */
export const PUBLIC_URL_SETTING = 'des public url';

/**
 * The address of a workspace page, for the `html_url` of an answer: under
 * DES_PUBLIC_URL when the service is configured with the address its users
 * reach it at (behind a proxy), else the address the request came to.
 * `segments` are encoded one by one; `at` (UNIX seconds) pins the page.
 */
export function workspaceUrl(req: Request, segments: string[], at?: number): string {
  const configured = req.app?.get(PUBLIC_URL_SETTING) as string | undefined;
  const base = configured
    ? configured.replace(/\/+$/, '')
    : `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const path = segments.map(encodeURIComponent).join('/');
  const query = at === undefined ? '' : `?at=${encodeURIComponent(isoMicros(at))}`;
  return `${base}${WORKSPACE_PATH}/${path}${query}`;
}
