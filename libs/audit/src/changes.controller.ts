import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { stringify } from 'csv-stringify';
import type { Request, Response } from 'express';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { TimeSlice } from '#des/event-store';
import { ApiHeavyRefusal, HeavyOperations, Requires } from '#des/platform';
import {
  type Change,
  type GapKind,
  populationSha256,
  sampleOf,
  type StartedChange,
  withAnyGap,
} from './change-population';
import { ChangePopulation } from './change-population.service';
import { CHANGE_COLUMNS, changeRow } from './change-csv';
import { ChangesPage, ChangesQuery, ChangesSample, SampleQuery } from './changes.dto';

/** Changes given their evidence at once when the whole population is written out or filtered by gaps. */
const CSV_CHUNK = 500;

/**
 * The change population an auditor tests change management on, and the
 * reproducible sample drawn from it (docs/auditors.md).
 */
@ApiTags('auditing')
@ApiExtraModels(ChangesPage)
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('audit')
export class ChangesController {
  constructor(
    private readonly population: ChangePopulation,
    private readonly heavy: HeavyOperations,
  ) {}

  @Get(':org/changes')
  @ApiOperation({ operationId: 'listChanges', summary: 'The change population of a period' })
  @Requires('reader')
  @ApiHeavyRefusal()
  @ApiProduces('application/json', 'text/csv')
  @ApiOkResponse({
    description:
      'A page of the population (JSON); with `Accept: text/csv`, the whole population as CSV (columns: ' +
      `${CHANGE_COLUMNS.join(', ')}) with its pin, total and hash in X-Population-At, -Total and -SHA256`,
    content: {
      'application/json': { schema: { $ref: getSchemaPath(ChangesPage) } },
      'text/csv': { schema: { type: 'string' } },
    },
  })
  async changes(
    @Param('org') org: string,
    @Query() query: ChangesQuery,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    const csv = req.accepts(['application/json', 'text/csv']) === 'text/csv';
    const gaps = (query.gaps?.split(',') ?? []) as GapKind[];
    // The whole population written out, or evidenced to find its gaps: a heavy operation.
    if (csv || gaps.length) await this.heavy.admit(org, res);
    const scope = await this.population.scope(org, query);
    const all = await this.population.started(org, scope);
    const sha = populationSha256(all.map((c) => c.id));
    const listed = withAnyGap(gaps);
    if (csv) {
      res.status(200).type('text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${org}-changes.csv"`);
      res.setHeader('X-Population-At', String(scope.at));
      res.setHeader('X-Population-Total', String(all.length));
      res.setHeader('X-Population-SHA256', sha);
      const chunks = this.evidenced(org, all, scope.at)[Symbol.asyncIterator]();
      // Read before the first byte goes, so that an outage then is still answered with its status.
      const first = await chunks.next();
      const slice = new TimeSlice();
      const rows = async function* () {
        for (let chunk = first; !chunk.done; chunk = await chunks.next())
          for (const change of chunk.value.filter(listed)) {
            // A client that reads as fast as rows are made never fills the socket: the loop still gets its turns.
            if (slice.due) await slice.turn();
            yield changeRow(change);
          }
      };
      // Row by row with back-pressure; a client that leaves ends the reading of the evidence.
      await pipeline(
        Readable.from(rows()),
        stringify({ header: true, columns: [...CHANGE_COLUMNS] }),
        res,
      ).catch(() => undefined);
      return;
    }
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 100;
    const window = (rows: number) => [(page - 1) * perPage, Math.min(rows, page * perPage)] as const;
    let total: number;
    let changes: Change[];
    if (!gaps.length) {
      total = all.length;
      changes = await this.population.withEvidence(org, all.slice(...window(all.length)), scope.at);
    } else {
      // A change's gaps are known once its evidence is: the whole population is evidenced to list them.
      const matching: Change[] = [];
      for await (const chunk of this.evidenced(org, all, scope.at)) matching.push(...chunk.filter(listed));
      total = matching.length;
      changes = matching.slice(...window(matching.length));
    }
    const body: ChangesPage = {
      ...scope,
      gaps,
      total_count: total,
      population_total: all.length,
      population_sha256: sha,
      page,
      per_page: perPage,
      total_pages: Math.ceil(total / perPage),
      changes,
    };
    res.status(200).json(body);
  }

  /** The population with its evidence, a chunk at a time. */
  private async *evidenced(org: string, all: StartedChange[], at: number): AsyncIterable<Change[]> {
    for (let i = 0; i < all.length; i += CSV_CHUNK)
      yield await this.population.withEvidence(org, all.slice(i, i + CSV_CHUNK), at);
  }

  @Get(':org/changes/sample')
  @ApiOperation({
    operationId: 'sampleChanges',
    summary: 'Draw a reproducible sample of the change population',
  })
  @Requires('reader')
  @ApiOkResponse({ type: ChangesSample })
  async sample(@Param('org') org: string, @Query() query: SampleQuery): Promise<ChangesSample> {
    const scope = await this.population.scope(org, query);
    const all = await this.population.started(org, scope);
    const drawn = sampleOf(all, query.seed, query.size);
    return {
      seed: query.seed,
      size: query.size,
      ...scope,
      population_total: all.length,
      population_sha256: populationSha256(all.map((c) => c.id)),
      changes: await this.population.withEvidence(org, drawn, scope.at),
    };
  }
}
