import type { EventMetadata } from '#des/event-store';
import { AggregateCommand } from '#des/platform';
import { RepoCommand, repoDecider, RepoEvent, RepoState, repoStream } from './repo.decider';

/** A write to one repository's own stream (its tags). */
export class ChangeRepo extends AggregateCommand<RepoCommand, RepoState, RepoEvent> {
  constructor(org: string, command: RepoCommand, metadata: EventMetadata) {
    super(repoStream(org, command.id), repoDecider, command, metadata);
  }
}
