import type { NextFunction, Request, Response } from 'express';
import { EventTooLargeError, TimeSlice } from '#des/event-store';
import { ApiError, MAX_JSON_DEPTH, TOO_DEEP, VALIDATION_FAILED } from '#des/platform';
import { MAX_REPORT_PODS } from './k8s-report';
import { environmentStream } from './environment.decider';
import { SnapshotSizeScan } from './k8s-report-size';
import { MAX_REPORT_UNITS } from './platform-report';

/** The environment reports' routes under the API prefix (as Express matches them: any case), K8S's among them. */
export const REPORT_ROUTE = '/environments/:org/:env/report/:type';

/** What one report may hold, counted from its text as it arrives. */
export interface ReportLimits {
  /** The event store's limit: a K8S report whose snapshot would weigh more is refused 413. */
  maxAppendSize: number;
  /** Image digests one pod (or running unit) may name: 400 past it. */
  maxDigestsPerPod: number;
  /** Image digests one report may name in all: 413 past it. */
  maxDigests: number;
}

const SCAN = Symbol('report-scan');
type Scanned = Request & { [SCAN]?: SnapshotSizeScan };

const isK8s = (req: Request) => String((req.params as { type?: string }).type).toUpperCase() === 'K8S';

/**
 * Why the report scanned so far cannot be taken, or undefined: JSON nested
 * too deep (400, as every body), more pods (or units) than a report may list
 * or more images than a pod may name (400 `Invalid report data`, naming the
 * field), more image digests in all than a report may name (413), or (K8S) a
 * snapshot larger than one append may carry (the event store's own 413).
 * The counts only grow as the text arrives, so a report is refused as soon as
 * it passes one, whatever follows.
 */
export function reportRefusal(req: Request, scan: SnapshotSizeScan, limits: ReportLimits): Error | undefined {
  if (scan.deepest > MAX_JSON_DEPTH) return new ApiError(400, VALIDATION_FAILED, { body: TOO_DEEP });
  const k8s = isK8s(req);
  // More pods than a report may hold is the validation's refusal (400), as before this scan.
  if (k8s && scan.separators >= MAX_REPORT_PODS)
    return new ApiError(400, VALIDATION_FAILED, {
      artifacts: `must NOT have more than ${MAX_REPORT_PODS} items`,
    });
  if (!k8s && scan.separators >= MAX_REPORT_UNITS)
    return new ApiError(400, INVALID_REPORT, {
      artifacts: `must NOT have more than ${MAX_REPORT_UNITS} items`,
    });
  if (scan.mostDigestsInPod > limits.maxDigestsPerPod)
    return new ApiError(400, INVALID_REPORT, {
      [`artifacts[${scan.podWithMostDigests}].digests`]: `must NOT name more than ${limits.maxDigestsPerPod} images`,
    });
  if (scan.digests > limits.maxDigests)
    return new ApiError(
      413,
      `Report too large: a report may name at most ${limits.maxDigests} image digests in all`,
      { artifacts: `must NOT name more than ${limits.maxDigests} image digests in all` },
    );
  if (k8s && scan.total > limits.maxAppendSize) {
    const { org, env } = req.params as { org?: string; env?: string };
    return new EventTooLargeError(environmentStream(org ?? '', env ?? ''), undefined, limits.maxAppendSize);
  }
  return undefined;
}

const INVALID_REPORT = 'Invalid report data';

/**
 * Reads an environment report's counts and snapshot size as its body
 * arrives (before the JSON body parser, which reads the same chunks): a
 * chunk's walk at a time, so a large report never holds the event loop for
 * the whole of it, and a report past a limit is refused at the chunk that
 * passes it: its text is neither kept nor parsed (the parser drops the rest).
 */
export const scanReport =
  (limits: ReportLimits) =>
  (req: Request, _res: Response, next: NextFunction): void => {
    const encoding = req.headers['content-encoding'];
    if (req.method === 'PUT' && (!encoding || encoding === 'identity')) {
      const scan = new SnapshotSizeScan();
      (req as Scanned)[SCAN] = scan;
      let refused = false;
      req.on('data', (chunk: Buffer) => {
        if (!refused) {
          scan.write(chunk);
          const refusal = reportRefusal(req, scan, limits);
          // The body parser reading this request takes the error as the stream's: it stops keeping the text.
          if (refusal) {
            refused = true;
            req.emit('error', refusal);
          }
        }
        // One chunk per turn of the event loop: libuv reads a busy socket up to 32 times a turn, and
        // two clients' megabytes walked in one turn held every other request (issue 27).
        req.pause();
        setImmediate(() => req.resume());
      });
    }
    next();
  };

/**
 * The check of an environment report's text before it is parsed, from that
 * scan (or, when the body came compressed, the text's, walked in slices that
 * give the event loop turns): the same refusals.
 */
export const refuseUntakeableReport =
  (limits: ReportLimits) =>
  async (req: Request, text: Buffer): Promise<void> => {
    let scan = (req as Scanned)[SCAN];
    if (!scan) {
      scan = new SnapshotSizeScan();
      const slice = new TimeSlice();
      for (let at = 0; at < text.length; at += SCAN_PIECE) {
        scan.write(text.subarray(at, at + SCAN_PIECE));
        await slice.turn();
      }
    }
    const refusal = reportRefusal(req, scan, limits);
    if (refusal) throw refusal;
  };

const SCAN_PIECE = 64 * 1024;
