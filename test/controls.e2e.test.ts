import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { OrganizationBootstrap } from '#des/accounts';
import { Mode, startApp, TestApp } from './support/app';

const CONTROL_FIELDS = [
  'archived',
  'created_at',
  'created_by',
  'description',
  'identifier',
  'last_modified_at',
  'links',
  'name',
  'policies_referencing',
  'tags',
  'version',
];

for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`controls, beta endpoint 2 (${mode} mode)`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp({ mode });
    });
    after(async () => t.close());

    const links = { policy: 'https://example.com/policies/change-management' };

    it('creates a control (201) with every field of the Control table, at version 1', async () => {
      const res = await t.http
        .post('/api/v2/controls/acme')
        .send({ identifier: 'CM-1', name: 'Change management', description: 'Reviewed changes', links });
      assert.equal(res.status, 201);
      assert.deepEqual(Object.keys(res.body).sort(), CONTROL_FIELDS);
      assert.equal(res.body.identifier, 'CM-1');
      assert.equal(res.body.version, 1);
      assert.equal(res.body.created_by, 'admin');
      assert.deepEqual(res.body.links, links);
      assert.deepEqual(res.body.tags, {});
      assert.equal(res.body.archived, false);
      assert.deepEqual(res.body.policies_referencing, []);
      assert.equal(typeof res.body.created_at, 'number');
    });

    it('adds a version on each change (endpoint 2); the same body again keeps it', async () => {
      const first = await t.http.put('/api/v2/controls/acme/CM-1').send({ name: 'Change control' });
      assert.equal(first.status, 200);
      assert.equal(first.body.version, 2);
      assert.equal(first.body.name, 'Change control');
      assert.equal(first.body.description, 'Reviewed changes', 'a field left out keeps its value');
      const again = await t.http
        .put('/api/v2/controls/acme/CM-1')
        .send({ name: 'Change control', description: 'Reviewed changes', links });
      assert.equal(again.status, 200);
      assert.equal(again.body.version, 2);
      const third = await t.http.put('/api/v2/controls/acme/CM-1').send({ links: {} });
      assert.equal(third.body.version, 3);
      assert.deepEqual(third.body.links, {});
      const read = await t.http.get('/api/v2/controls/acme/CM-1');
      assert.deepEqual(read.body, third.body);
      const list = await t.http.get('/api/v2/controls/acme');
      assert.deepEqual(
        list.body.map((c: { identifier: string }) => c.identifier),
        ['CM-1'],
      );
    });

    it('names a control by its identifier when no name is given', async () => {
      const unnamed = await t.http.post('/api/v2/controls/acme').send({ identifier: 'CM-0' });
      assert.deepEqual([unnamed.status, unnamed.body.name], [201, 'CM-0']);
    });

    it('answers 404 Control not found for an unknown control', async () => {
      for (const res of [
        await t.http.put('/api/v2/controls/acme/NOPE').send({ name: 'x' }),
        await t.http.get('/api/v2/controls/acme/NOPE'),
      ]) {
        assert.equal(res.status, 404);
        assert.deepEqual(res.body, { message: 'Control not found' });
      }
    });

    it('answers 400 with errors for a bad payload, and for a control that exists', async () => {
      const bad = await t.http
        .post('/api/v2/controls/acme')
        .send({ identifier: '-bad', name: 7, links: 'x', extra: 1 });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.message, 'Input payload validation failed');
      assert.deepEqual(Object.keys(bad.body.errors).sort(), ['extra', 'identifier', 'links', 'name']);
      const badLink = await t.http.put('/api/v2/controls/acme/CM-1').send({ links: { policy: 1 } });
      assert.equal(badLink.status, 400);
      assert.deepEqual(badLink.body.errors, { 'links.policy': 'a link is a string (its URL)' });
      const twice = await t.http.post('/api/v2/controls/acme').send({ identifier: 'CM-1', name: 'again' });
      assert.equal(twice.status, 400);
      assert.equal(twice.body.message, 'Input payload validation failed');
      assert.ok(twice.body.errors.identifier);
    });

    it('answers 403 on every control route to an organization without the feature', async () => {
      const { key } = await t.app.get(OrganizationBootstrap).createOrganization('nobeta', ['evaluations'], 5);
      const http = request.agent(t.server).set({ Authorization: `Bearer ${key}` });
      for (const res of [
        await http.post('/api/v2/controls/nobeta').send({ identifier: 'X-1', name: 'x' }),
        await http.get('/api/v2/controls/nobeta'),
        await http.get('/api/v2/controls/nobeta/X-1'),
        await http.put('/api/v2/controls/nobeta/X-1').send({ name: 'y' }),
      ]) {
        assert.equal(res.status, 403);
        assert.deepEqual(res.body, {
          message: 'This feature is not enabled for your organization',
        });
      }
    });
  });
}
