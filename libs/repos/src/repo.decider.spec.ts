import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { repoDecider } from './repo.decider';

const { given } = deciderSpec(repoDecider);
const change = (set_tags: Record<string, string>, remove_tags: string[] = []) => ({ set_tags, remove_tags });

describe('repo decider', () => {
  it('starts from the tags the repository shows while its own stream is empty (tags of a log keyed by name)', () => {
    given()
      .when({ kind: 'change_tags', id: 'repo_x', change: change({ team: 'web' }), shown: { owner: 'ops' } })
      .then([
        {
          type: 'tags_changed',
          data: { set_tags: { team: 'web' }, remove_tags: [], tags: { owner: 'ops', team: 'web' } },
        },
      ]);
  });

  it('then goes by its own stream alone', () => {
    given({ type: 'tags_changed', data: { set_tags: {}, remove_tags: [], tags: { team: 'web' } } })
      .when({ kind: 'change_tags', id: 'repo_x', change: change({}, ['team']), shown: { stale: 'yes' } })
      .then([{ type: 'tags_changed', data: { set_tags: {}, remove_tags: ['team'], tags: {} } }]);
  });
});
