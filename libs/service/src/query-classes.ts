import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import {
  MULTIPART_FORM,
  type MultipartForm,
  PATH_VARIANTS,
  type PathVariants,
  REQUIRED_PRIVILEGE,
} from '#des/platform';

/** What the document cannot see of a route: its query DTO class, the privilege it requires, its multipart form and path variants. */
export interface OperationFacts {
  /** The class of its whole `@Query()` argument. */
  queryClass?: string;
  privilege?: string;
  /** Set when it also takes multipart with `data_json` (`AcceptsDataJson`). */
  multipartForm?: MultipartForm;
  pathVariants?: PathVariants;
}

/** `@ApiOperation`'s metadata key (`@nestjs/swagger`'s DECORATORS.API_OPERATION). */
const API_OPERATION = 'swagger/apiOperation';

/**
 * Each route's facts, by the OpenAPI operation id the document gives it: its
 * `@ApiOperation` id, else Nest's `<Controller>_<method>`.
 */
export function operationFacts(app: INestApplication): Map<string, OperationFacts> {
  const facts = new Map<string, OperationFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name] as unknown;
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
        const operationId =
          (Reflect.getMetadata(API_OPERATION, handler) as { operationId?: string } | undefined)
            ?.operationId ?? `${controller.name}_${name}`;
        const privilege = (Reflect.getMetadata(REQUIRED_PRIVILEGE, handler) ??
          Reflect.getMetadata(REQUIRED_PRIVILEGE, controller)) as string | undefined;
        facts.set(operationId, {
          queryClass: queryClassOf(controller, name),
          privilege,
          multipartForm: Reflect.getMetadata(MULTIPART_FORM, handler) as MultipartForm | undefined,
          pathVariants: Reflect.getMetadata(PATH_VARIANTS, handler) as PathVariants | undefined,
        });
      }
    }
  }
  return facts;
}

function queryClassOf(controller: new (...args: never[]) => unknown, name: string): string | undefined {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<
    string,
    { index: number; data?: unknown }
  >;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, name) ?? []) as {
    name?: string;
  }[];
  for (const [key, arg] of Object.entries(args)) {
    if (Number(key.split(':')[0]) !== RouteParamtypes.QUERY || arg.data !== undefined) continue;
    const type = types[arg.index]?.name;
    if (type && type !== 'Object') return type;
  }
  return undefined;
}
