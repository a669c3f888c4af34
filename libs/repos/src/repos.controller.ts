import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { tagsOf } from '#des/kernel';
import { ApiError, AtQuery, PageQuery, READ_STORE, ReadModelsAt, Requires } from '#des/platform';
import type { Doc, ReadStore } from '#des/read-store';
import { ReposPage, RepoView } from './repos.dto';
import { REPOS, repoId, reposProjection } from './repos.projection';

/** A repository document as the API shows it: every field but the store's own, its tags as a map. */
const repoView = (doc: Doc): RepoView => ({
  org: doc.org as string,
  name: doc.name as string,
  url: doc.url as string | null,
  provider: doc.provider as string | null,
  tags: tagsOf(doc.tags),
});

/** Repositories, registered from the `repo_info` of trails and artifacts. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('repos')
export class ReposController {
  constructor(
    @Inject(READ_STORE) private readonly reads: ReadStore,
    private readonly history: ReadModelsAt,
  ) {}

  /** Repositories come from their own streams and from the trails that name them. */
  private readsAt(org: string, at: number | undefined): Promise<ReadStore> {
    return this.history.readsFor(at, { org, projections: [reposProjection] });
  }

  @Get(':org')
  @ApiOperation({ operationId: 'listRepos', summary: 'List repositories' })
  @Requires('reader')
  @ApiOkResponse({ type: ReposPage, description: 'The Kosli CLI reads this page' })
  async list(
    @Param('org') org: string,
    @Query() { at, page = 1, per_page: perPage = 20 }: PageQuery,
  ): Promise<ReposPage> {
    const reads = await this.readsAt(org, at);
    const collection = reads.collection(REPOS);
    const [total, docs] = await Promise.all([
      collection.count({ org }),
      collection.find({ org }, { sort: { name: 1 }, skip: (page - 1) * perPage, limit: perPage }),
    ]);
    return {
      repos: docs.map(repoView),
      page,
      per_page: perPage,
      total_pages: Math.ceil(total / perPage),
      total_count: total,
    };
  }

  @Get(':org/:name')
  @ApiOperation({ operationId: 'getRepo', summary: 'Read a repository' })
  @Requires('reader')
  @ApiParam({ name: 'name', description: 'URL-encoded when it holds a "/" (acme%2Fbackend)' })
  @ApiOkResponse({ type: RepoView })
  async read(
    @Param('org') org: string,
    @Param('name') name: string,
    @Query() { at }: AtQuery,
  ): Promise<RepoView> {
    const reads = await this.readsAt(org, at);
    const doc = await reads.collection(REPOS).findOne({ _id: repoId(org, name) });
    if (!doc) throw new ApiError(404, 'Repo not found');
    return repoView(doc);
  }
}
