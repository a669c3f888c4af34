import type { Doc, DocReads } from '#des/read-store';
import type { FlowTemplate } from './flow-template';
import { FLOWS, flowId } from './flows.projection';

/** A flow as the read models hold it. */
export interface FlowDoc extends Doc {
  org: string;
  name: string;
  description?: string;
  template: FlowTemplate | null;
  /** Stored tags (`tagsOf` reads them). */
  tags?: unknown;
}

/** The flow named `name`, or null. */
export async function flowNamed(reads: DocReads, org: string, name: string): Promise<FlowDoc | null> {
  return (await reads.get(FLOWS, flowId(org, name))) as FlowDoc | null;
}

/** The flows among `names` that exist. */
export async function flowsNamed(reads: DocReads, org: string, names: string[]): Promise<FlowDoc[]> {
  if (names.length === 0) return [];
  return (await reads.find(FLOWS, {
    _id: { $in: [...new Set(names)].map((n) => flowId(org, n)) },
  })) as FlowDoc[];
}

/** Every flow of the organization. */
export async function flowsOf(reads: DocReads, org: string): Promise<FlowDoc[]> {
  return (await reads.find(FLOWS, { org })) as FlowDoc[];
}
