import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiError, READ_STORE, Requires, tagsOf } from '#des/platform';
import { withoutInternals } from '#des/projections';
import type { Doc, ReadStore } from '#des/read-store';
import { REPOS, repoId } from './repos.projection';

const repoView = (doc: Doc) => ({ ...withoutInternals(doc), tags: tagsOf(doc.tags) });

/** Repositories, registered from the `repo_info` of trails and artifacts. */
@ApiTags('evidence')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('repos')
export class ReposController {
  constructor(@Inject(READ_STORE) private readonly reads: ReadStore) {}

  @Get(':org')
  @Requires('reader')
  async list(@Param('org') org: string) {
    return (await this.reads.collection(REPOS).find({ org }, { sort: { name: 1 } })).map(repoView);
  }

  @Get(':org/:name')
  @Requires('reader')
  @ApiParam({ name: 'name', description: 'URL-encoded when it holds a "/" (acme%2Fbackend)' })
  async read(@Param('org') org: string, @Param('name') name: string) {
    const doc = await this.reads.collection(REPOS).findOne({ _id: repoId(org, name) });
    if (!doc) throw new ApiError(404, 'Repo not found');
    return repoView(doc);
  }
}
