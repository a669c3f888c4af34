import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { ApiError, ErrorBodyFilter, Metrics, VALIDATION_FAILED, validationPipe } from '#des/platform';
import { AppModule, AppOptions } from './app.module';

export const API_PREFIX = 'api/v2';
export const BODY_LIMIT = '10mb';
const PROBES = ['health/live', 'health/ready', 'metrics'];

/** The HTTP application with the API's conventions; `main` and the e2e tests both build it here. */
export async function createHttpApp(options: AppOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(options), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  // Not strict, so that a JSON `null` (the Kosli CLI's body on DELETE and archive) parses; then it is "no body".
  app.useBodyParser('json', { limit: BODY_LIMIT, strict: false });
  app.use(bodyParserErrors);
  app.use(nullAsNoBody);
  app.use(probeAliases);
  app.use(httpMetrics(app.get(Metrics)));
  app.setGlobalPrefix(API_PREFIX, { exclude: PROBES });
  app.useGlobalFilters(new ErrorBodyFilter());
  app.useGlobalPipes(validationPipe());
  serveOpenApi(app);
  app.enableShutdownHooks();
  return app;
}

/** body-parser's failures as the API's errors (Nest would otherwise keep only their message). */
function bodyParserErrors(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed')
    return next(new ApiError(400, VALIDATION_FAILED, { body: 'Malformed JSON' }));
  if (type === 'entity.too.large') {
    return next(new ApiError(413, `Request body exceeds the ${BODY_LIMIT.toUpperCase()} limit`));
  }
  next(error);
}

/** A JSON `null` body reads as no body; any other bare value is refused as before (bodies are objects or arrays). */
function nullAsNoBody(req: Request, _res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  if (body === null) req.body = {};
  else if (body !== undefined && typeof body !== 'object' && req.is('application/json'))
    return next(new ApiError(400, VALIDATION_FAILED, { body: 'Malformed JSON' }));
  next();
}

/** Probes answer at the root (for orchestrators) and under the API prefix; readiness also at `/ready`. */
function probeAliases(req: Request, _res: Response, next: NextFunction): void {
  // `/ready` at the host's root: where the Kosli CLI's `status` asks.
  if (req.path === '/ready') req.url = `/health/ready${req.url.slice('/ready'.length)}`;
  const prefixed = `/${API_PREFIX}/`;
  if (req.url.startsWith(prefixed) && PROBES.some((p) => req.path === prefixed + p)) {
    req.url = req.url.slice(prefixed.length - 1);
  }
  next();
}

function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}

/** OpenAPI 3.1 generated from the DTOs, at /api/v2/openapi.json (UI at /api/v2/docs). */
function serveOpenApi(app: NestExpressApplication): void {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Delivery Evidence Service')
    .setDescription('Records software-delivery evidence and serves it for platform engineers and auditors.')
    .setVersion('2.0')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key' })
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'API key as the user name, empty password' })
    .build();
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, () => SwaggerModule.createDocument(app, config), {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
  });
}
