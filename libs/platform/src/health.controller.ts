import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOperation } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { HealthChecks } from './health-checks';
import { Public } from './privileges';

/** Probes and metrics: no authentication, served at the root and under /api/v2. */
@ApiExcludeController()
@Public()
@Controller()
export class HealthController {
  constructor(private readonly checks: HealthChecks) {}

  @Get('health/live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Check that the service is alive' })
  live() {
    return { status: 'ok' };
  }

  @Get('health/ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary: 'Check that the service and its stores are ready to serve',
  })
  ready() {
    return this.checks.ready();
  }

  /**
   * Readiness where the Kosli CLI's `status` asks, answered as the Kosli
   * server does: the text `OK`; when not ready, the same 503 as `/health/ready`.
   */
  @Get('ready')
  @ApiOperation({
    operationId: 'getKosliReadiness',
    summary: 'Check readiness, answered `OK` (the Kosli CLI)',
  })
  async kosliReady(@Res() res: Response) {
    await this.checks.ready();
    res.type('text/plain').send('OK');
  }

  @Get('metrics')
  @ApiOperation({ operationId: 'getMetrics', summary: 'Read the Prometheus metrics' })
  async prometheus(@Req() req: Request, @Res() res: Response) {
    const { contentType, text } = await this.checks.prometheus(req.headers.authorization);
    res.setHeader('Content-Type', contentType);
    res.send(text);
  }
}
