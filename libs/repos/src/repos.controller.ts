import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { storedTagsFilter, tagsOf } from '#des/kernel';
import { ApiError, READ_STORE, ReadModelsAt, Requires } from '#des/platform';
import { docReads, type Doc, type ReadStore } from '#des/read-store';
import { ambiguousRepo, repoNotFound } from './repo-errors';
import { RepoQuery, ReposPage, ReposQuery, RepoView } from './repos.dto';
import { REPOS, reposProjection } from './repos.projection';
import { repoNamedOrIdentified } from './repos.queries';

/** A repository document as the API shows it: every field but the store's own, its tags as a map. */
const repoView = (doc: Doc): RepoView => ({
  id: doc.id as string,
  org: doc.org as string,
  name: doc.name as string,
  url: doc.url as string | null,
  provider: doc.provider as string | null,
  repo_id: (doc.repo_id as string | null | undefined) ?? null,
  tags: tagsOf(doc.tags),
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A wildcard path parameter: Express 5 gives its segments as a list. */
const joined = (param: string | string[]) => (Array.isArray(param) ? param.join('/') : param);

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
  async list(@Param('org') org: string, @Query() query: ReposQuery): Promise<ReposPage> {
    const { at, page = 1, per_page: perPage = 20, sort_direction: direction = 'asc' } = query;
    const filter = {
      org,
      ...(query.name !== undefined ? { name: query.name } : {}),
      ...(query.search ? { name: { $regex: escapeRegExp(query.search), $options: 'i' } } : {}),
      ...(query.provider !== undefined ? { provider: query.provider } : {}),
      ...(query.repo_id !== undefined ? { repo_id: query.repo_id } : {}),
      ...storedTagsFilter(query.tag ?? []),
    };
    const reads = await this.readsAt(org, at);
    const collection = reads.collection(REPOS);
    const order = direction === 'desc' ? -1 : 1;
    const { total, docs } = await collection.findPage(filter, {
      sort: { name: order, id: order },
      skip: (page - 1) * perPage,
      limit: perPage,
    });
    return {
      repos: docs.map(repoView),
      page,
      per_page: perPage,
      total_pages: Math.ceil(total / perPage),
      total_count: total,
    };
  }

  @Get(':org/*name')
  @ApiOperation({
    operationId: 'getRepo',
    summary: 'Read a repository',
    description:
      "By name (which may hold `/`, as `owner/name`), narrowed by `?provider=` when several share it; or by its id here with `?id=`, the path's name then ignored.",
  })
  @Requires('reader')
  @ApiParam({ name: 'name', description: 'The name, `/` and all (acme/backend)' })
  @ApiOkResponse({ type: RepoView })
  async read(
    @Param('org') org: string,
    @Param('name') name: string | string[],
    @Query() { at, provider, id }: RepoQuery,
  ): Promise<RepoView> {
    const reads = docReads(await this.readsAt(org, at));
    const asked = id ?? joined(name);
    const lookup = await repoNamedOrIdentified(reads, org, asked, id ? undefined : provider);
    if (lookup.found) {
      if (id && lookup.found.id !== id) throw new ApiError(404, repoNotFound(id));
      return repoView(lookup.found);
    }
    if (lookup.reason === 'ambiguous') throw new ApiError(400, ambiguousRepo(asked, lookup.providers));
    throw new ApiError(404, repoNotFound(asked));
  }
}
