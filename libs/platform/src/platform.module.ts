import { ServiceKey } from './service-key';
import { AttachmentStore } from './attachment-store';
import { UploadAdmission } from './upload-admission';
import { HeavyOperations } from './heavy-operations';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { TerminusModule } from '@nestjs/terminus';
import type { Upcaster } from '#des/event-store';
import type { Projection, Reaction } from '#des/projections';
import { AggregateCommandHandler } from './aggregate-command';
import { CommandExecutor } from './command-executor';
import { ReadModelsAt } from './read-models-at';
import { Config, Role } from './config';
import { openEngines } from './engines';
import { HealthController } from './health.controller';
import { Metrics } from './metrics';
import { ReadModelProgress } from './read-model-progress';
import { PROJECTIONS, PlatformRuntime, REACTIONS } from './platform-runtime';
import { CONFIG, EVENT_STORE, JOBS, PDF_RENDERER, PROJECTION_PROGRESS, READ_STORE, ROLE } from './tokens';
import { PdfRendererHost } from './pdf-renderer-host';
import { TENANT_LIMITS, TENANT_USAGE } from './tenant-limits';
import { TenantSources } from './tenant-sources';
import { EventLogQuota } from './event-log-quota';
import { ShutdownState } from './shutdown-state';
import { HealthChecks } from './health-checks';
import { StorageHealth } from './storage-health';

const ENGINES = Symbol('ENGINES');
type Engines = Awaited<ReturnType<typeof openEngines>>;

export interface PlatformOptions {
  config: Config;
  role: Role;
  projections: Projection[];
  /** Reactions the projector runs after each batch (processes playing the projector role). */
  reactions?: Reaction[];
  /** Serve health and metrics through the API's HTTP server (API processes; the others serve them on `DES_OPS_PORT`). */
  http?: boolean;
  /** Every feature's upcasters (`allUpcasters`): the log as the domain reads it. */
  upcasters: Upcaster[];
}

/** Infrastructure for every process: the command bus, the ports' adapters chosen by configuration, and their lifecycle. */
@Global()
@Module({})
export class PlatformModule {
  static forRoot(options: PlatformOptions): DynamicModule {
    return {
      module: PlatformModule,
      // The command bus: every write of every process goes through it.
      imports: [CqrsModule.forRoot(), TerminusModule.forRoot({ logger: false })],
      controllers: options.http ? [HealthController] : [],
      providers: [
        { provide: CONFIG, useValue: options.config },
        { provide: ROLE, useValue: options.role },
        { provide: PROJECTIONS, useValue: options.projections },
        { provide: REACTIONS, useValue: options.reactions ?? [] },
        { provide: ENGINES, useFactory: () => openEngines(options.config, options.upcasters) },
        { provide: EVENT_STORE, useFactory: (e: Engines) => e.events, inject: [ENGINES] },
        { provide: READ_STORE, useFactory: (e: Engines) => e.reads, inject: [ENGINES] },
        { provide: JOBS, useFactory: (e: Engines) => e.jobs, inject: [ENGINES] },
        {
          provide: PDF_RENDERER,
          useFactory: () => new PdfRendererHost({ tagged: options.config.pdfTagged }),
        },
        Metrics,
        PlatformRuntime,
        ReadModelProgress,
        { provide: PROJECTION_PROGRESS, useExisting: ReadModelProgress },
        CommandExecutor,
        AggregateCommandHandler,
        ReadModelsAt,
        AttachmentStore,
        UploadAdmission,
        HeavyOperations,
        ServiceKey,
        // The configured defaults and nothing counted, until the accounts feature plugs in what it keeps per organization.
        TenantSources,
        { provide: TENANT_LIMITS, useExisting: TenantSources },
        { provide: TENANT_USAGE, useExisting: TenantSources },
        EventLogQuota,
        ShutdownState,
        HealthChecks,
        StorageHealth,
      ],
      exports: [
        CONFIG,
        ROLE,
        EVENT_STORE,
        READ_STORE,
        JOBS,
        PDF_RENDERER,
        PROJECTION_PROGRESS,
        Metrics,
        PlatformRuntime,
        CommandExecutor,
        ReadModelsAt,
        AttachmentStore,
        UploadAdmission,
        HeavyOperations,
        ServiceKey,
        TENANT_LIMITS,
        TENANT_USAGE,
        TenantSources,
        EventLogQuota,
        ShutdownState,
        HealthChecks,
        StorageHealth,
      ],
    };
  }
}
