import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Mode, startApp, TestApp } from './support/app';

/**
 * Repositories as the Kosli CLI reads them: by a name holding `/` (sent
 * unescaped), told apart by provider and provider id, by their id here, tagged
 * by that id, listed with filters, and as they were at a past instant.
 */
for (const mode of ['embedded', 'server'] as Mode[]) {
  describe(`repositories (${mode} mode)`, () => {
    let t: TestApp;
    let beforeTags = 0;

    const begin = (trail: string, repo_info: Record<string, unknown>) =>
      t.http.put('/api/v2/trails/acme/shop').send({ name: trail, repo_info }).expect(201);
    const get = (path: string) => t.http.get(`/api/v2/repos/acme/${path}`);
    const names = async (query: string) => {
      const res = await t.http.get(`/api/v2/repos/acme?${query}`).expect(200);
      return res.body.repos.map((r: { name: string; repo_id: string | null }) => `${r.name}#${r.repo_id}`);
    };

    before(async () => {
      t = await startApp({ mode });
      await t.http.put('/api/v2/flows/acme').send({ name: 'shop' }).expect(201);
      const github = (name: string, id: string) => ({
        name,
        id,
        provider: 'github',
        url: `https://github.com/${name}`,
      });
      await begin('t1', github('kosli-dev/cli', '1234567890'));
      await begin('t2', github('suite-org/ambiguous', '111'));
      await begin('t3', github('suite-org/ambiguous', '222'));
      await begin('t4', { name: 'suite-org/ambiguous', provider: 'gitlab' });
      await begin('t5', github('suite-org/Sort-b', '702'));
      await begin('t6', github('suite-org/sort-a', '701'));
      beforeTags = Date.now() / 1000;
    });
    after(async () => t.close());

    it('reads a repository by a name holding "/", escaped or not, with its id here and its provider id', async () => {
      const plain = await get('kosli-dev/cli').expect(200);
      assert.equal(plain.body.name, 'kosli-dev/cli');
      assert.equal(plain.body.provider, 'github');
      assert.equal(plain.body.repo_id, '1234567890');
      assert.match(plain.body.id, /^repo_[0-9a-f]{24}$/);
      assert.deepEqual(plain.body.tags, {});
      const escaped = await get('kosli-dev%2Fcli').expect(200);
      assert.deepEqual(escaped.body, plain.body);
    });

    it('names what it cannot find, and asks for the provider when several repositories share the name', async () => {
      const missing = await get('non-existing/repo').expect(404);
      assert.deepEqual(missing.body, { message: "Repo 'non-existing/repo' not found" });
      const ambiguous = await get('suite-org/ambiguous').expect(400);
      assert.match(
        ambiguous.body.message,
        /^Multiple repos named 'suite-org\/ambiguous' exist \(github, gitlab\)\. Specify the 'provider'/,
      );
      const gitlab = await get('suite-org/ambiguous?provider=gitlab').expect(200);
      assert.deepEqual([gitlab.body.provider, gitlab.body.repo_id], ['gitlab', null]);
      // Two of github: the first registered is the one.
      const github = await get('suite-org/ambiguous?provider=github').expect(200);
      assert.equal(github.body.repo_id, '111');
      await get('kosli-dev/cli?provider=gitlab').expect(404);
    });

    it('reads a repository by its id here, whatever the path names, and tags it by that id', async () => {
      const { id } = (await get('suite-org/ambiguous?provider=github').expect(200)).body;
      const byId = await get(`${id}?id=${id}`).expect(200);
      assert.equal(byId.body.repo_id, '111');
      assert.equal((await get(`anything?id=${id}`).expect(200)).body.id, id);
      assert.deepEqual((await get('x?id=no-such-inner-id').expect(404)).body, {
        message: "Repo 'no-such-inner-id' not found",
      });

      await t.http
        .patch(`/api/v2/tags/acme/repo/${id}`)
        .send({ set_tags: { team: 'platform' } })
        .expect(200);
      assert.deepEqual((await get(`x?id=${id}`)).body.tags, { team: 'platform' });
      // Its namesake of the same provider is another repository: untouched.
      const other = (await names('name=suite-org/ambiguous&tag=team')).sort();
      assert.deepEqual(other, ['suite-org/ambiguous#111']);
      // A name several repositories share cannot be tagged: which one?
      const refused = await t.http
        .patch(`/api/v2/tags/acme/repo/${encodeURIComponent('suite-org/ambiguous')}`)
        .send({ set_tags: { a: 'b' } })
        .expect(400);
      assert.match(refused.body.message, /^Multiple repos named/);
    });

    it('lists repositories by exact name, text in any case, provider, provider id and tags, in either order, by pages', async () => {
      assert.deepEqual(await names('name=kosli-dev/cli'), ['kosli-dev/cli#1234567890']);
      assert.deepEqual(await names('search=SORT-'), ['suite-org/Sort-b#702', 'suite-org/sort-a#701']);
      assert.deepEqual(await names('search=sort-&sort_direction=desc'), [
        'suite-org/sort-a#701',
        'suite-org/Sort-b#702',
      ]);
      assert.deepEqual(await names('provider=gitlab'), ['suite-org/ambiguous#null']);
      assert.deepEqual(await names('repo_id=222'), ['suite-org/ambiguous#222']);
      assert.deepEqual(await names('repo_id=non-existing-id'), []);
      assert.deepEqual(await names('tag=team:platform'), ['suite-org/ambiguous#111']);
      assert.deepEqual(await names('tag=team:doesnotexist'), []);
      assert.deepEqual(await names('tag=team&tag=team:platform'), ['suite-org/ambiguous#111']);

      const page = await t.http.get('/api/v2/repos/acme?page=2&per_page=4').expect(200);
      assert.deepEqual(
        [
          page.body.repos.length,
          page.body.page,
          page.body.per_page,
          page.body.total_pages,
          page.body.total_count,
        ],
        [2, 2, 4, 2, 6],
      );
      const beyond = await t.http.get('/api/v2/repos/acme?page=9&per_page=4').expect(200);
      assert.deepEqual([beyond.body.repos, beyond.body.page], [[], 9]);
      const bad = await t.http.get('/api/v2/repos/acme?sort_direction=up').expect(400);
      assert.equal(bad.body.errors.sort_direction, 'sort_direction must be one of: asc, desc');
    });

    it('answers as it was at a past instant: before the tag, none', async () => {
      const then = await t.http.get(`/api/v2/repos/acme?tag=team&at=${beforeTags}`).expect(200);
      assert.deepEqual(then.body.repos, []);
      const one = await get(`suite-org/ambiguous?provider=github&at=${beforeTags}`).expect(200);
      assert.deepEqual(one.body.tags, {});
    });
  });
}
