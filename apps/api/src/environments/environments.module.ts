import { Module } from '@nestjs/common';
import { EnvironmentsController } from './environments.controller';

/** Environments, Kubernetes reports → snapshots, deployments and the audit log. */
@Module({ controllers: [EnvironmentsController] })
export class EnvironmentsModule {}
