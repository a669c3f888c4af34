import type { Request } from 'express';
import { workspaceUrl } from '#des/platform';

/** The trail's page in the workspace, at an instant when one is given. */
export function trailUrl(req: Request, org: string, flow: string, trail: string, at?: number): string {
  return workspaceUrl(req, [org, 'flows', flow, 'trails', trail], at);
}
