import type { Decider, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange } from '#des/kernel';

/** A repository's own stream holds what users say of it (its tags); trails register it implicitly. */
export const repoStream = (org: string, name: string) => `repo-${org}/${name}`;

export type RepoEvent = TagsChanged;
export type RepoCommand = { kind: 'change_tags'; name: string; change: TagChange };
export interface RepoState {
  tags: Tags;
}

export const repoDecider: Decider<RepoCommand, RepoState, RepoEvent> = {
  initialState: { tags: {} },
  evolve: (_state, event) => ({ tags: event.data.tags }),
  decide: (command, state) => decideTagChange(state.tags, command.change),
};
