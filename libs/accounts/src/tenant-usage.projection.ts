import { eventSize, type StoredEvent } from '#des/event-store';
import type { DocWrite, Projection, ProjectionReads } from '#des/projections';
import type { Doc } from '#des/read-store';

export const TENANT_USAGE_COLLECTION = 'tenant_usage';
/** One document per file an organization's attestations name: its bytes count once however often it is named. */
export const TENANT_ATTACHMENTS = 'tenant_attachments';

export interface TenantUsageDoc extends Doc {
  event_log_bytes: number;
  attachment_bytes: number;
}

interface AttachmentRef {
  sha256: string;
  size: number;
}

/**
 * What each organization keeps, counted from the log: the bytes of its events
 * (as the event store counts an append) and of the attachment files its
 * attestations name (each file once per organization; files are kept by
 * content). Rebuilt with the other read models, so it survives restarts.
 */
export const tenantUsageProjection: Projection = {
  name: 'tenant_usage',
  collections: [
    { name: TENANT_USAGE_COLLECTION, indexes: [] },
    { name: TENANT_ATTACHMENTS, indexes: [] },
  ],
  async project(event, reads) {
    const org = event.metadata.org;
    if (typeof org !== 'string' || org === '') return [];
    // Read, so that the batch's many counts of one organization reach the store as one write.
    await reads.get(TENANT_USAGE_COLLECTION, org);
    const attachmentBytes = await newAttachments(org, event, reads);
    // The count first, the files' marks after: a replay after a crash between the two
    // finds no mark, counts again, and the count's position guard skips it.
    return [
      {
        collection: TENANT_USAGE_COLLECTION,
        id: org,
        update: { $inc: { event_log_bytes: eventSize(event), attachment_bytes: attachmentBytes.total } },
      },
      ...attachmentBytes.marks,
    ];
  },
};

async function newAttachments(
  org: string,
  event: StoredEvent,
  reads: ProjectionReads,
): Promise<{ total: number; marks: DocWrite[] }> {
  if (event.type !== 'attestation_reported') return { total: 0, marks: [] };
  const named = event.data.attachments;
  if (!Array.isArray(named)) return { total: 0, marks: [] };
  const seen = new Set<string>();
  const marks: DocWrite[] = [];
  let total = 0;
  for (const file of named as AttachmentRef[]) {
    const id = `${org}/${file.sha256}`;
    if (seen.has(id) || (await reads.get(TENANT_ATTACHMENTS, id))) continue;
    seen.add(id);
    total += file.size;
    marks.push({
      collection: TENANT_ATTACHMENTS,
      id,
      update: { $set: { org, size: file.size } },
      once: true,
    });
  }
  return { total, marks };
}
