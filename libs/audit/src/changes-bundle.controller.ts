import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBasicAuth, ApiBearerAuth, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { AuthenticatedRequest, requestMetadata } from '#des/accounts';
import { flowStream } from '#des/flows';
import { type BundleFile, EvidenceBundles, jsonFile } from '#des/ledger';
import { ApiError, ApiFileResponse, Heavy, Requires, sendStream, VALIDATION_FAILED } from '#des/platform';
import { TrailAuditPdf, trailFileName, trailStream } from '#des/trails';
import { type Change, type GapKind, populationSha256, sampleOf, withAnyGap } from './change-population';
import { ChangePopulation } from './change-population.service';
import { CHANGE_COLUMNS, changeRow } from './change-csv';
import { ChangesBundleQuery } from './changes.dto';

/** A population bundle holds at most this many changes: past it, narrow the period or draw a sample. */
export const BUNDLE_MAX_CHANGES = 1_000;

/**
 * The change population (or a sample of it) as an evidence bundle: the
 * changes with their evidence, and the events of the trails they came from
 * with their inclusion proofs; a sample's bundle also holds each sampled
 * trail's audit PDF (ADR 0025).
 */
@ApiTags('auditing')
@ApiBearerAuth('bearer')
@ApiBasicAuth('basic')
@Controller('audit')
export class ChangesBundleController {
  constructor(
    private readonly population: ChangePopulation,
    private readonly bundles: EvidenceBundles,
    private readonly trailReport: TrailAuditPdf,
  ) {}

  @Get(':org/changes/bundle')
  @Heavy()
  @ApiOperation({
    operationId: 'getChangesBundle',
    summary: 'Download the change population, or a sample of it, as an evidence bundle (zip)',
  })
  @Requires('reader')
  @ApiProduces('application/zip')
  @ApiFileResponse(
    'application/zip',
    "manifest.json and its signature, the changes (JSON, CSV), the sampled trails' audit PDFs, the trails' events with their inclusion proofs, the checkpoint, the key and verify.mjs",
  )
  async bundle(
    @Param('org') org: string,
    @Query() query: ChangesBundleQuery,
    @Req() req: AuthenticatedRequest,
    @Res() res: Response,
  ) {
    const sampled = query.seed !== undefined || query.size !== undefined;
    if (sampled && (query.seed === undefined || query.size === undefined))
      throw new ApiError(400, VALIDATION_FAILED, {
        [query.seed === undefined ? 'seed' : 'size']: 'seed and size draw a sample together',
      });
    if (sampled && query.gaps)
      throw new ApiError(400, VALIDATION_FAILED, { gaps: 'a sample is drawn from the whole population' });
    const scope = await this.population.scope(org, query);
    const all = await this.population.started(org, scope);
    const sha = populationSha256(all.map((c) => c.id));
    let changes: Change[];
    if (sampled) {
      changes = await this.population.withEvidence(org, sampleOf(all, query.seed!, query.size!), scope.at);
    } else {
      if (all.length > BUNDLE_MAX_CHANGES)
        throw new ApiError(400, VALIDATION_FAILED, {
          from: `the population holds ${all.length} changes; a bundle holds at most ${BUNDLE_MAX_CHANGES}: narrow the period or draw a sample (seed, size)`,
        });
      const gaps = (query.gaps?.split(',') ?? []) as GapKind[];
      changes = (await this.population.withEvidence(org, all, scope.at)).filter(withAnyGap(gaps));
    }
    const trails = new Map<string, { flow: string; trail: string }>();
    for (const c of changes)
      if (c.flow && c.trail) trails.set(`${c.flow}/${c.trail}`, { flow: c.flow, trail: c.trail });
    const record = {
      ...scope,
      ...(sampled ? { seed: query.seed, size: query.size } : { gaps: query.gaps?.split(',') ?? [] }),
      population_total: all.length,
      population_sha256: sha,
      total_count: changes.length,
      changes,
    };
    const files: BundleFile[] = [
      await jsonFile('records/changes.json', record),
      {
        path: 'records/changes.csv',
        bytes: Buffer.from(stringify(changes.map(changeRow), { header: true, columns: [...CHANGE_COLUMNS] })),
      },
    ];
    if (sampled)
      for (const { flow, trail } of trails.values())
        files.push({
          path: `reports/trails/${trailFileName(flow, trail, 'audit.pdf')}`,
          bytes: await this.trailReport.render(org, flow, trail, scope.at),
        });
    const zip = await this.bundles.export({
      org,
      subject: { kind: 'changes', query: bundleQueryOf(query, scope.at) },
      at: scope.at,
      streams: [...trails.values()].flatMap(({ flow, trail }) => [
        flowStream(org, flow),
        trailStream(org, flow, trail),
      ]),
      positions: await this.population.reportPositions(org, changes),
      files,
      metadata: requestMetadata(req),
    });
    res
      .status(200)
      .type('application/zip')
      .setHeader(
        'Content-Disposition',
        `attachment; filename="${org}-changes${sampled ? '-sample' : ''}-bundle.zip"`,
      )
      .setHeader('Content-Length', String(zip.size));
    await sendStream(res, zip.stream());
  }
}

/** The query that draws the same bundle again: its parameters, pinned to the instant it showed. */
function bundleQueryOf(query: ChangesBundleQuery, at: number): Record<string, string> {
  const given = Object.entries(query).filter(([, value]) => value !== undefined);
  return { ...Object.fromEntries(given.map(([name, value]) => [name, String(value)])), at: String(at) };
}
