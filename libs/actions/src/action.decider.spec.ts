import { describe, it } from 'node:test';
import { deciderSpec } from '#des/kernel/testing';
import { ActionCommand, ActionEvent, actionsDecider } from './action.decider';

const { given } = deciderSpec(actionsDecider, { newId: () => 'secret-1' });
const fields = {
  environments: ['prod'],
  triggers: ['ON_STARTED_ARTIFACT' as const],
  targets: [{ type: 'WEBHOOK' as const, webhook: 'https://hooks.example.com/a' }],
  flows: [],
};
const put = (name: string, more: Partial<typeof fields> = {}): ActionCommand => ({
  kind: 'put_action',
  name,
  createdBy: 'admin',
  ...fields,
  ...more,
});
const created = (number: number, name: string): ActionEvent => ({
  type: 'action_created',
  data: { number, name, type: 'environment', created_by: 'admin', secret_id: 'secret-1', ...fields },
});

describe('actions decider', () => {
  it('numbers new actions from 1 in the organization, each with a secret id', () => {
    given()
      .when(put('a'))
      .then([created(1, 'a')]);
    given(created(1, 'a'))
      .when(put('b'))
      .then([created(2, 'b')]);
  });

  it('updates an action by name, keeping its number; the same body records nothing', () => {
    given(created(1, 'a')).when(put('a')).then([]);
    given(created(1, 'a'))
      .when(put('a', { environments: ['prod', 'staging'] }))
      .then([{ type: 'action_updated', data: { number: 1, ...fields, environments: ['prod', 'staging'] } }]);
  });

  it('never hands a deleted action’s number out again', () => {
    const deleted: ActionEvent = { type: 'action_deleted', data: { number: 2 } };
    given(created(1, 'a'), created(2, 'b'), deleted)
      .when(put('b'))
      .then([created(3, 'b')]);
    given(created(1, 'a'), created(2, 'b'), deleted)
      .when({ kind: 'delete_action', number: 2 })
      .thenError('not_found', 'Action not found');
  });

  it('rotates the secret of a live action only', () => {
    given(created(1, 'a'))
      .when({ kind: 'rotate_secret', number: 1 }, { newId: () => 'secret-2' })
      .then([{ type: 'action_secret_rotated', data: { number: 1, secret_id: 'secret-2' } }]);
    given().when({ kind: 'rotate_secret', number: 1 }).thenError('not_found', 'Action not found');
  });
});
