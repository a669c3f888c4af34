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

/**
 * The address of a page in the Kosli app's own scheme (`/{org}/flows/{flow}/
 * artifacts/{fingerprint}`, `/{org}/flows/{flow}/trails/{trail}`,
 * `/{org}/environments/{env}`), which the Kosli CLI prints and builds itself;
 * the service answers those paths with a redirect into the workspace
 * (`serveWorkspace`).
 */
export function kosliAppUrl(req: Request, segments: string[], query: Record<string, string> = {}): string {
  const workspace = workspaceUrl(req, []);
  const base = workspace.slice(0, workspace.length - `${WORKSPACE_PATH}/`.length);
  const search = new URLSearchParams(query).toString();
  return `${base}/${segments.map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`;
}

/** A Kosli app page's path (see `kosliAppUrl`): its workspace path, or null. A snapshot's number is dropped. */
export function workspacePathOfKosliPage(path: string): string | null {
  const page =
    /^\/([^/]+)\/(flows\/[^/]+(?:\/(?:artifacts|trails)\/[^/]+)?|environments\/[^/]+)(?:\/\d+)?\/?$/.exec(
      path,
    );
  return page ? `${WORKSPACE_PATH}/${page[1]}/${page[2]}` : null;
}
