import { tagsOf } from '#des/kernel';
import type { Doc } from '#des/read-store';
import type { EnvironmentView } from './environments.dto';

/** An environment as endpoint 11 answers it. */
export function environmentView(doc: Doc): EnvironmentView {
  return {
    org: doc.org as string,
    name: doc.name as string,
    type: doc.type as string,
    description: doc.description as string,
    last_modified_at: (doc.last_modified_at as number) ?? null,
    include_scaling: false,
    tags: tagsOf(doc.tags),
    last_reported_at: (doc.last_reported_at as number) ?? null,
    last_changed_at: (doc.last_changed_at as number) ?? null,
    state: (doc.state as boolean | undefined) ?? true,
    policies: (doc.policies as string[]) ?? [],
    included_environments: (doc.included_environments as string[]) ?? [],
  };
}
