import type { Request } from 'express';
import { EventTooLargeError } from '#des/event-store';
import { environmentStream } from './environment.decider';
import { snapshotBytesAtLeast } from './k8s-report-size';

/** The K8S report's route under the API prefix (as Express matches it: any case). */
export const K8S_REPORT_ROUTE = '/environments/:org/:env/report/K8S';

/**
 * A JSON body parser's `verify` for the K8S report: a report whose snapshot
 * could not be recorded (`maxAppendSize`) is refused from its text, before it
 * is parsed, with the event store's own refusal (413).
 */
export const refuseUnrecordableReport =
  (maxAppendSize: number) =>
  (req: Request, text: Buffer): void => {
    if (snapshotBytesAtLeast(text) <= maxAppendSize) return;
    const { org, env } = req.params as { org?: string; env?: string };
    throw new EventTooLargeError(environmentStream(org ?? '', env ?? ''), undefined, maxAppendSize);
  };
