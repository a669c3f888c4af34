import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { tagsOf } from '#des/kernel';
import { ApiError, AtQuery, PageQuery, READ_STORE, ReadModelsAt, Requires } from '#des/platform';
import { withoutInternals } from '#des/projections';
import type { Doc, ReadStore } from '#des/read-store';
import { REPOS, repoId, reposProjection } from './repos.projection';

const repoView = (doc: Doc) => ({ ...withoutInternals(doc), tags: tagsOf(doc.tags) });

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
  @ApiOkResponse({
    description: '{repos, page, per_page, total_pages, total_count} (the Kosli CLI reads this page)',
  })
  async list(@Param('org') org: string, @Query() { at, page = 1, per_page: perPage = 20 }: PageQuery) {
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
  async read(@Param('org') org: string, @Param('name') name: string, @Query() { at }: AtQuery) {
    const reads = await this.readsAt(org, at);
    const doc = await reads.collection(REPOS).findOne({ _id: repoId(org, name) });
    if (!doc) throw new ApiError(404, 'Repo not found');
    return repoView(doc);
  }
}
