import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController, ApiOperation } from '@nestjs/swagger';
import type { Response } from 'express';
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

  @Get('metrics')
  @ApiOperation({ operationId: 'getMetrics', summary: 'Read the Prometheus metrics' })
  async prometheus(@Res() res: Response) {
    const { contentType, text } = await this.checks.prometheus();
    res.setHeader('Content-Type', contentType);
    res.send(text);
  }
}
