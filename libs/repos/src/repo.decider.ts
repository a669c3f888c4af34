import type { Decider, TagChange, Tags, TagsChanged } from '#des/kernel';
import { decideTagChange } from '#des/kernel';

/** A repository's own stream (by its id here) holds what users say of it (its tags); trails register it implicitly. */
export const repoStream = (org: string, id: string) => `repo-${org}/${id}`;

export type RepoEvent = TagsChanged;
export type RepoCommand = {
  kind: 'change_tags';
  /** The repository's id here (`repo_…`). */
  id: string;
  change: TagChange;
  /**
   * The tags the repository shows now: a log written before repositories had
   * ids kept them in a stream keyed by the name, so a repository's own stream
   * may not hold them yet. Used only while its stream is empty.
   */
  shown: Tags;
};
export interface RepoState {
  tags: Tags | null;
}

export const repoDecider: Decider<RepoCommand, RepoState, RepoEvent> = {
  initialState: { tags: null },
  evolve: (_state, event) => ({ tags: event.data.tags }),
  decide: (command, state) => decideTagChange(state.tags ?? command.shown, command.change),
};
