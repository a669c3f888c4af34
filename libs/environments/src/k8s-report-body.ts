import type { NextFunction, Request, Response } from 'express';
import { EventTooLargeError } from '#des/event-store';
import { ApiError, MAX_JSON_DEPTH, TOO_DEEP, VALIDATION_FAILED } from '#des/platform';
import { MAX_REPORT_PODS } from './k8s-report';
import { environmentStream } from './environment.decider';
import { SnapshotSizeScan } from './k8s-report-size';

/** The K8S report's route under the API prefix (as Express matches it: any case). */
export const K8S_REPORT_ROUTE = '/environments/:org/:env/report/K8S';

const SCAN = Symbol('k8s-report-scan');
type Scanned = Request & { [SCAN]?: SnapshotSizeScan };

/**
 * Reads a K8S report's snapshot size as its body arrives (before the JSON
 * body parser, which reads the same chunks): a chunk's walk at a time, so a
 * large report never holds the event loop for the whole of it.
 */
export function scanK8sReport(req: Request, _res: Response, next: NextFunction): void {
  const encoding = req.headers['content-encoding'];
  if (req.method === 'PUT' && (!encoding || encoding === 'identity')) {
    const scan = new SnapshotSizeScan();
    (req as Scanned)[SCAN] = scan;
    req.on('data', (chunk: Buffer) => {
      scan.write(chunk);
      // One chunk per turn of the event loop: libuv reads a busy socket up to 32 times a turn, and
      // two clients' megabytes walked in one turn held every other request (issue 27).
      req.pause();
      setImmediate(() => req.resume());
    });
  }
  next();
}

/**
 * The JSON body parser's `verify` for the K8S report, from that scan (or the
 * text's, when the body came compressed): JSON nested too deep is refused as
 * every body is (400); a report whose snapshot could not be recorded
 * (`maxAppendSize`) is refused before it is parsed, with the event store's own
 * refusal (413).
 */
export const refuseUnrecordableReport =
  (maxAppendSize: number) =>
  (req: Request, text: Buffer): void => {
    let scan = (req as Scanned)[SCAN];
    if (!scan) {
      scan = new SnapshotSizeScan();
      scan.write(text);
    }
    if (scan.deepest > MAX_JSON_DEPTH) throw new Error(TOO_DEEP);
    // More pods than a report may hold is the validation's refusal (400), as before this scan.
    if (scan.separators >= MAX_REPORT_PODS)
      throw new ApiError(400, VALIDATION_FAILED, {
        artifacts: `must NOT have more than ${MAX_REPORT_PODS} items`,
      });
    if (scan.total <= maxAppendSize) return;
    const { org, env } = req.params as { org?: string; env?: string };
    throw new EventTooLargeError(environmentStream(org ?? '', env ?? ''), undefined, maxAppendSize);
  };
