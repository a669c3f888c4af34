import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';

/**
 * Each route's query DTO class (its whole `@Query()` argument), by the
 * OpenAPI operation id Nest's document gives it (`<Controller>_<method>`).
 */
export function queryClassesByOperation(app: INestApplication): Map<string, string> {
  const classes = new Map<string, string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name] as unknown;
        if (typeof handler !== 'function' || Reflect.getMetadata(PATH_METADATA, handler) === undefined)
          continue;
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
          if (type && type !== 'Object') classes.set(`${controller.name}_${name}`, type);
        }
      }
    }
  }
  return classes;
}
