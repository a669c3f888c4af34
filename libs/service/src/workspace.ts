import type { NestExpressApplication } from '@nestjs/platform-express';
import compression from 'compression';
import { static as serveStatic, type NextFunction, type Request, type Response } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, WORKSPACE_PATH, workspacePathOfKosliPage } from '#des/platform';

/**
 * The built workspace, beside the compiled service: `dist/workspace` after
 * `npm run build`, `dist-test/workspace` after npm test's compile step
 * (scripts/build-workspace.mjs writes both).
 */
export const WORKSPACE_DIR = join(__dirname, '../../../workspace');

/** No inline script or style, nothing from another origin, never framed (issue 31, ADR 0023). */
export const WORKSPACE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', WORKSPACE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
}

/**
 * Serves the workspace at /ui/ from the same process and port as the API:
 * its hashed assets cached for a year, its page never cached, both
 * compressed; any other path under /ui/ is the page (the router's). Before
 * Nest's routes, so the API's prefix is untouched.
 */
export function serveWorkspace(app: NestExpressApplication, dir = WORKSPACE_DIR): void {
  const page = join(dir, 'index.html');
  app.use(
    WORKSPACE_PATH,
    securityHeaders,
    compression(),
    serveStatic(dir, {
      index: false,
      setHeaders: (res, path) =>
        res.setHeader(
          'Cache-Control',
          path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
        ),
    }),
    (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') return next();
      if (!existsSync(page)) return next(new ApiError(404, 'The workspace is not built: run npm run build'));
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(page);
    },
  );
}

/**
 * Where a page address outside the workspace redirects: `/` to the
 * workspace, and the Kosli app's page addresses (the Kosli CLI prints them)
 * to the same page here; undefined for any other request.
 */
export function workspaceRedirect(req: Request): string | undefined {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  if (req.path === '/') return `${WORKSPACE_PATH}/`;
  const page = workspacePathOfKosliPage(req.path);
  if (!page) return undefined;
  const query = req.originalUrl.indexOf('?');
  return query < 0 ? page : `${page}${req.originalUrl.slice(query)}`;
}
