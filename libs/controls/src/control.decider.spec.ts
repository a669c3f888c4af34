import { describe, it } from 'node:test';
import { deciderSpec, tagPatch } from '#des/kernel/testing';
import { ControlCommand, controlDecider, ControlEvent } from './control.decider';

const { given } = deciderSpec(controlDecider);
const links = { standard: 'https://example.com/iso-27001#a12' };
const create: ControlCommand = {
  kind: 'create_control',
  identifier: 'SOC2-CC8.1',
  name: 'Change management',
  description: 'Changes are reviewed',
  links,
  createdBy: 'admin',
};
const created: ControlEvent = {
  type: 'control_created',
  data: {
    identifier: 'SOC2-CC8.1',
    name: 'Change management',
    description: 'Changes are reviewed',
    links,
    created_by: 'admin',
    version: 1,
  },
};
const update = (fields: Partial<{ name: string; description: string; links: Record<string, string> }>) =>
  ({ kind: 'update_control', identifier: 'SOC2-CC8.1', ...fields }) as const;
const updated = (version: number, fields: object): ControlEvent => {
  const { name, description } = created.data;
  return {
    type: 'control_updated',
    data: { identifier: 'SOC2-CC8.1', name, description, links, ...fields, version },
  };
};

describe('control decider', () => {
  it('creates a control at version 1, once', () => {
    given().when(create).then([created]);
    given(created).when(create).thenError('invalid', 'Input payload validation failed', {
      identifier: "a control 'SOC2-CC8.1' already exists; update it with PUT",
    });
  });

  it('adds a version on each change; the same fields again change nothing', () => {
    const v2 = updated(2, { name: 'Change control' });
    given(created)
      .when(update({ name: 'Change control' }))
      .then([v2]);
    given(created, v2)
      .when(update({ description: 'Every change is reviewed' }))
      .then([updated(3, { name: 'Change control', description: 'Every change is reviewed' })]);
    given(created, v2)
      .when(update({ name: 'Change control', links }))
      .then([]);
    given(created).when(update({})).then([]);
  });

  it('refuses to update an unknown control', () => {
    given()
      .when(update({ name: 'x' }))
      .thenError('not_found', 'Control not found');
  });

  it('changes tags without a new version, and only what changes', () => {
    const tag = (...change: Parameters<typeof tagPatch>): ControlCommand => ({
      kind: 'change_tags',
      identifier: 'SOC2-CC8.1',
      change: tagPatch(...change),
    });
    const tagged: ControlEvent = {
      type: 'tags_changed',
      data: { set_tags: { owner: 'sec' }, remove_tags: [], tags: { owner: 'sec' } },
    };
    given(created)
      .when(tag({ owner: 'sec' }))
      .then([tagged]);
    given(created, tagged)
      .when(tag({ owner: 'sec' }))
      .then([]);
    given(created, tagged)
      .when(tag({}, ['owner']))
      .then([{ type: 'tags_changed', data: { set_tags: {}, remove_tags: ['owner'], tags: {} } }]);
    given()
      .when(tag({ owner: 'sec' }))
      .thenError('not_found', 'Resource not found');
  });

  it('archives and unarchives; an archived control refuses changes', () => {
    const archived: ControlEvent = { type: 'control_archived', data: { identifier: 'SOC2-CC8.1' } };
    const unarchived: ControlEvent = { type: 'control_unarchived', data: { identifier: 'SOC2-CC8.1' } };
    const message =
      "Control 'SOC2-CC8.1' is archived; unarchive it (POST /controls/{org}/SOC2-CC8.1/unarchive) to change it";
    given(created).when({ kind: 'archive_control', identifier: 'SOC2-CC8.1' }).then([archived]);
    given(created, archived).when({ kind: 'archive_control', identifier: 'SOC2-CC8.1' }).then([]);
    given(created, archived)
      .when(update({ name: 'x' }))
      .thenError('invalid', message);
    given(created, archived)
      .when({ kind: 'change_tags', identifier: 'SOC2-CC8.1', change: tagPatch({ a: 'b' }) })
      .thenError('invalid', message);
    given(created, archived).when({ kind: 'unarchive_control', identifier: 'SOC2-CC8.1' }).then([unarchived]);
    given(created).when({ kind: 'unarchive_control', identifier: 'SOC2-CC8.1' }).then([]);
    given()
      .when({ kind: 'archive_control', identifier: 'SOC2-CC8.1' })
      .thenError('not_found', 'Control not found');
  });
});
