import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventStore } from '#des/event-store';
import { EVENT_STORE } from '#des/platform';
import { repoInnerId } from '#des/repos';
import { RESOURCE_TYPES } from '#des/tags';
import { Mode, startApp, TestApp } from './support/app';

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`tags, endpoint 7 (${mode} mode)`, () => {
    let t: TestApp;
    /** Where each resource shows its tags. */
    const readPaths = {
      flow: '/api/v2/flows/acme/backend',
      environment: '/api/v2/environments/acme/prod',
      repo: `/api/v2/repos/acme/${encodeURIComponent('acme/backend')}`,
      control: '/api/v2/controls/acme/CM-1',
    };
    const ids = {
      flow: 'backend',
      environment: 'prod',
      repo: encodeURIComponent('acme/backend'),
      control: 'CM-1',
    };
    const streams = {
      flow: 'flow-acme/backend',
      environment: 'environment-acme/prod',
      // A repository's own stream is keyed by its id here (the trail gives no provider and no provider id).
      repo: `repo-acme/${repoInnerId({ name: 'acme/backend' })}`,
      control: 'control-acme/CM-1',
    };

    before(async () => {
      t = await startApp({ mode });
      await t.http
        .put('/api/v2/flows/acme')
        .send({ name: 'backend', tags: { team: 'core' } })
        .expect(201);
      await t.http.put('/api/v2/environments/acme').send({ name: 'prod', type: 'K8S' }).expect(201);
      await t.http
        .put('/api/v2/trails/acme/backend')
        .send({
          name: 'main-1',
          repo_info: { name: 'acme/backend', url: 'https://git.example/acme/backend' },
        })
        .expect(201);
      await t.http
        .post('/api/v2/controls/acme')
        .send({ identifier: 'CM-1', name: 'Change management' })
        .expect(201);
    });
    after(async () => t.close());

    for (const resource of Object.keys(RESOURCE_TYPES) as (keyof typeof RESOURCE_TYPES)[]) {
      it(`sets and removes the tags of a ${resource} under every name of its type, at once visible`, async () => {
        let expected: Record<string, string> = resource === 'flow' ? { team: 'core' } : {};
        for (const [i, type] of RESOURCE_TYPES[resource].entries()) {
          const res = await t.http.patch(`/api/v2/tags/acme/${type}/${ids[resource]}`).send({
            set_tags: { [`k${i}`]: `v${i}`, 'a.b-c_d~e': type },
            remove_tags: i > 0 ? [`k${i - 1}`] : [],
          });
          assert.equal(res.status, 200);
          assert.match(res.headers['content-type'], /^application\/json/);
          assert.equal(res.body, 'Tags updated');
          expected = { ...expected, [`k${i}`]: `v${i}`, 'a.b-c_d~e': type };
          if (i > 0) delete expected[`k${i - 1}`];
          assert.deepEqual((await t.http.get(readPaths[resource])).body.tags, expected);
        }
        const events = await t.app.get<EventStore>(EVENT_STORE).readStream(streams[resource]);
        const tagEvents = events.filter((e) => e.type === 'tags_changed');
        assert.equal(tagEvents.length, RESOURCE_TYPES[resource].length, 'one tags_changed per patch');
        assert.deepEqual(tagEvents.at(-1)!.data.tags, expected);
        const unchanged = await t.http
          .patch(`/api/v2/tags/acme/${RESOURCE_TYPES[resource][0]}/${ids[resource]}`)
          .send({ set_tags: { k0: expected.k0 ?? 'gone' }, remove_tags: [] });
        assert.equal(unchanged.status, 200);
      });

      it(`answers 404 Resource not found for an unknown ${resource}`, async () => {
        const res = await t.http
          .patch(`/api/v2/tags/acme/${RESOURCE_TYPES[resource][0]}/nope`)
          .send({ set_tags: { a: 'b' } });
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { message: 'Resource not found' });
      });
    }

    it('answers 400 with errors for an unknown resource type and for bad keys or values', async () => {
      const type = await t.http.patch('/api/v2/tags/acme/pipelines/backend').send({ set_tags: { a: 'b' } });
      assert.equal(type.status, 400);
      assert.equal(type.body.message, 'Input payload validation failed');
      assert.match(
        type.body.errors.resource_type,
        /flow, flows, environment, environments, env, repo, repos/,
      );
      const bad = await t.http
        .patch('/api/v2/tags/acme/flow/backend')
        .send({ set_tags: { '-x': 'v', ok: 7, 'a b': 'v' }, remove_tags: ['fine', '.hidden'] });
      assert.equal(bad.status, 400);
      assert.deepEqual(Object.keys(bad.body.errors).sort(), [
        'remove_tags[1]',
        'set_tags.-x',
        'set_tags.a b',
        'set_tags.ok',
      ]);
      const shape = await t.http
        .patch('/api/v2/tags/acme/flow/backend')
        .send({ set_tags: [], remove_tags: 'x' });
      assert.equal(shape.status, 400);
      assert.deepEqual(Object.keys(shape.body.errors).sort(), ['remove_tags', 'set_tags']);
    });
  });
}
