import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import type { Server } from 'node:http';
import type { Logger as PinoRoot } from 'pino';
import {
  ApiError,
  CONFIG,
  type Config,
  type HttpLimitsConfig,
  ErrorBodyFilter,
  errorBody,
  nestLogger,
  processLogger,
  ShutdownState,
  StorageHealth,
  Metrics,
  PUBLIC_URL_SETTING,
  MAX_JSON_DEPTH,
  TOO_DEEP,
  VALIDATION_FAILED,
  validationPipe,
} from '#des/platform';
import type { Duplex } from 'node:stream';
import { EventTooLargeError } from '#des/event-store';
import { REPORT_ROUTE, refuseUntakeableReport, scanReport } from '#des/environments';
import { AppModule, AppOptions } from './app.module';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import {
  withErrorResponses,
  withMultipartForms,
  withOas31Nullability,
  withPathVariants,
  withPrivileges,
  withValidatorRules,
} from './openapi-exact';
import { operationFacts, type OperationFacts } from './query-classes';
import { serveWorkspace } from './workspace';
import { HttpDrain } from './http-drain';
import { JsonReplyAdapter } from './json-reply-adapter';
import { frontDoor } from './front-door';
import { applyToWriteRoutes, idempotencyFor } from './write-routes';
import { keyGate, KeyLookups } from '#des/accounts';
import { applyHttpTimeouts, ConnectionLimits } from './connection-limits';
import { bodyBudget, needsNoKey } from './early-refusals';
import { jsonBody } from './json-body';

export const API_PREFIX = 'api/v2';
export const BODY_LIMIT = '10mb';
const BODY_LIMIT_BYTES = 10 * 1024 * 1024;
const PROBES = ['health/live', 'health/ready', 'metrics'];

/** The HTTP application with the API's conventions; `main` and the e2e tests both build it here. */
export async function createHttpApp(options: AppOptions): Promise<NestExpressApplication> {
  const logger = options.logger ?? processLogger(options.config.logLevel, options.role);
  // The process's own logger from the first line on (not buffered: a long start-up's progress shows as it happens).
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register({ ...options, logger }),
    new JsonReplyAdapter(),
    {
      logger: nestLogger(logger),
      bodyParser: false,
    },
  );
  app.disable('x-powered-by');
  // No ETag on the API's answers: it hashed every body sent, and no client of ours sends If-None-Match
  // (the workspace's files have their own, from the static server).
  app.set('etag', false);
  const drain = new HttpDrain(app.get(ShutdownState), isProbePath);
  drains.set(app, drain);
  app.set(PUBLIC_URL_SETTING, options.config.publicUrl);
  const document = openApiDocument(app);
  // First of all, once per request: its id, the shutdown gate, the probes' aliases, 405 before any
  // body is read, the workspace's redirects, and its completion line and metric.
  app.use(
    frontDoor({
      prefix: `/${API_PREFIX}`,
      probes: PROBES,
      drain,
      metrics: app.get(Metrics),
      logger,
      document,
    }),
  );
  // The evidence workspace at /ui/, from the same process and port (ADR 0023).
  serveWorkspace(app);
  // Strangers cost nothing: no body is read before the key is known live, nor past the bytes in flight (ADR 0037).
  app.use(keyGate(app.get(KeyLookups), needsNoKey(`/${API_PREFIX}`, isProbePath)));
  app.use(
    bodyBudget(
      options.config.http,
      { limitBytes: BODY_LIMIT_BYTES, tooLarge: bodyTooLarge },
      app.get(Metrics),
    ),
  );
  // An environment report past its limits (digests, pods, a K8S snapshot too large to record) is refused
  // from its text, read as it arrives (the general parser then passes it by).
  const reportLimits = {
    maxAppendSize: options.config.maxAppendSize,
    maxDigestsPerPod: options.config.maxReportDigestsPerPod,
    maxDigests: options.config.maxReportDigests,
  };
  app.use(
    `/${API_PREFIX}${REPORT_ROUTE}`,
    scanReport(reportLimits),
    // A report's width is bounded by its own limits (pods, digests), not by the general ones.
    jsonBody({
      limit: BODY_LIMIT,
      shape: { maxDepth: MAX_JSON_DEPTH, maxKeys: Infinity, maxNodes: Infinity },
      check: refuseUntakeableReport(reportLimits),
    }),
  );
  // JSON nested too deep for the recursive steps after it (validation, the log's canonical JSON), or too
  // wide or large for the time its validation takes (`DES_JSON_MAX_…`), is refused from its text.
  app.use(
    jsonBody({
      limit: BODY_LIMIT,
      shape: {
        maxDepth: MAX_JSON_DEPTH,
        maxKeys: options.config.json.maxKeysPerObject,
        maxNodes: options.config.json.maxValues,
      },
    }),
  );
  app.use(bodyParserErrors);
  applyToWriteRoutes(app, idempotencyFor(app));
  // `/ready`: the Kosli CLI's `status` asks at the host's root.
  app.setGlobalPrefix(API_PREFIX, { exclude: [...PROBES, 'ready'] });
  app.useGlobalFilters(new ErrorBodyFilter(app.get(StorageHealth)));
  app.useGlobalPipes(validationPipe());
  SwaggerModule.setup(`${API_PREFIX}/docs`, app, document, {
    jsonDocumentUrl: `${API_PREFIX}/openapi.json`,
    yamlDocumentUrl: `${API_PREFIX}/openapi.yaml`,
  });
  const server = app.getHttpServer() as Server;
  server.on('clientError', answerClientError(options.config.http));
  applyHttpTimeouts(server, options.config.http);
  new ConnectionLimits(options.config.http, app.get(Metrics)).watch(server);
  return app;
}

const drains = new WeakMap<NestExpressApplication, HttpDrain>();

/**
 * Stops an API process gracefully (SIGTERM, SIGINT): readiness fails and new
 * requests answer 503 at once, requests in flight finish (for up to
 * `DES_SHUTDOWN_TIMEOUT_MS`), the HTTP server closes, then the platform
 * stops in order (projector, saved read models, jobs, engines), each step logged.
 */
export async function stopHttpApp(
  app: NestExpressApplication,
  signal: string,
  logger: PinoRoot,
): Promise<void> {
  const drain = drains.get(app)!;
  const timeoutMs = app.get<Config>(CONFIG).shutdownTimeoutMs;
  logger.info(
    `${signal}: stopping; readiness fails and new requests answer 503; ` +
      `${drain.requestsInFlight} request(s) in flight get up to ${timeoutMs} ms`,
  );
  const started = Date.now();
  const { unfinished } = await drain.drain(app.getHttpServer() as Server, timeoutMs);
  if (unfinished > 0)
    logger.warn(`${unfinished} request(s) still running after ${timeoutMs} ms were cut off`);
  logger.info(`HTTP server closed: requests in flight answered (${Date.now() - started} ms)`);
  await app.close();
}

/** body-parser's failures as the API's errors (Nest would otherwise keep only their message). */
function bodyParserErrors(error: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const type = (error as { type?: string } | null)?.type;
  if (type === 'entity.verify.failed')
    return next(
      error instanceof EventTooLargeError || error instanceof ApiError
        ? error
        : new ApiError(400, VALIDATION_FAILED, { body: TOO_DEEP }),
    );
  if (type === 'entity.parse.failed')
    return next(new ApiError(400, VALIDATION_FAILED, { body: 'Malformed JSON' }));
  if (type === 'entity.too.large') return next(bodyTooLarge());
  next(error);
}

function bodyTooLarge(): ApiError {
  return new ApiError(413, `Request body exceeds the ${BODY_LIMIT.toUpperCase()} limit`);
}

/**
 * What Node's HTTP server refuses before any handler runs, answered with the
 * API's error body instead of an empty one: a request line or headers over
 * its limit (431), a request not received within the headers or request
 * timeout (408), anything malformed (400). The connection closes.
 */
function answerClientError(limits: HttpLimitsConfig) {
  const late = errorBody('Request not received in time', {
    timeout: `headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms`,
  });
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, reason, body] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', errorBody('Request line or headers too large')]
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout', late]
          : [400, 'Bad Request', errorBody('Malformed HTTP request')];
    const text = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  };
}

/** A probe's path: at the root, under the API prefix, or `/ready`. */
function isProbePath(path: string): boolean {
  return path === '/ready' || PROBES.some((p) => path === `/${p}` || path === `/${API_PREFIX}/${p}`);
}

/** OpenAPI 3.1 generated from the DTOs, made exact, built once on first use: /api/v2/openapi.json (UI at /api/v2/docs). */
function openApiDocument(app: NestExpressApplication): () => OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Delivery Evidence Service')
    .setDescription('Records software-delivery evidence and serves it for platform engineers and auditors.')
    .setVersion('2.0')
    .addServer('/', 'This service: every path carries the /api/v2 prefix')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key' })
    .addBasicAuth({ type: 'http', scheme: 'basic', description: 'API key as the user name, empty password' })
    .addTag(
      'environments',
      'Environments and what runs in them: Kubernetes reports become snapshots; deployments, the audit log and the policies attached',
    )
    .addTag('flows', 'Flows (a kind of delivery) and the templates their trails must meet')
    .addTag('evidence', 'Trails, the artifacts they build and the attestations about them; repositories')
    .addTag(
      'auditing',
      'Answers for auditors: the change population and its sample, the environment report, the ledger head',
    )
    .addTag('evaluations', 'Rego policies evaluated over trails at one recorded instant (beta)')
    .addTag('policies', 'Environment policies: versioned YAML judging what runs')
    .addTag('controls', 'Versioned controls that policies refer to (beta)')
    .addTag('actions', 'Notification rules: signed webhooks and Slack messages on environment changes')
    .addTag('tags', 'User-defined tags on flows, environments, repositories and controls')
    .addTag('service accounts', 'Service accounts and their API keys')
    .addTag(
      'custom attestation types',
      'Attestation types an organization defines: a JSON schema and jq rules',
    )
    .addTag('kosli cli', 'Routes the Kosli CLI reads, in its shapes')
    .build();
  // Not open source: the document says so rather than leaving the license out.
  // (OAS 3.1's SPDX `identifier`, which @nestjs/swagger's 3.0 types do not know.)
  config.info.license = { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as never;
  let document: OpenAPIObject | undefined;
  return () => {
    if (document) return document;
    // The rules the validation pipe enforces, as JSON schemas of each DTO class.
    const validators = validationMetadatasToSchemas({
      refPointerPrefix: '#/components/schemas/',
      classTransformerMetadataStorage: defaultMetadataStorage,
    });
    const facts = operationFacts(app);
    const fact =
      <K extends keyof OperationFacts>(key: K) =>
      (id: string) =>
        facts.get(id)?.[key];
    let built = SwaggerModule.createDocument(app, config);
    built = withValidatorRules(built, validators as never, fact('queryClass'));
    built = withPrivileges(withErrorResponses(built), fact('privilege'));
    // The forms before the variants: each variant's form takes its own data_json.
    built = withPathVariants(withMultipartForms(built, fact('multipartForm')), fact('pathVariants'));
    document = withOas31Nullability(built);
    return document;
  };
}
