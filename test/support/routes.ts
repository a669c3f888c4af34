import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';
import { PUBLIC_ROUTE, REQUIRED_PRIVILEGE } from '#des/platform';

export interface Route {
  method: string;
  path: string;
  controller: string;
  handler: string;
  privilege?: string;
  isPublic: boolean;
}

const join = (...parts: string[]) =>
  '/' +
  parts
    .flatMap((p) => p.split('/'))
    .filter(Boolean)
    .join('/');

/** Every route of the app's controllers, with the privilege it declares. */
export function routesOf(app: INestApplication, prefix = 'api/v2'): Route[] {
  const routes: Route[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
      if (!controller) continue;
      const base = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
      const classPublic = Reflect.getMetadata(PUBLIC_ROUTE, controller) === true;
      const classPrivilege = Reflect.getMetadata(REQUIRED_PRIVILEGE, controller) as string | undefined;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name] as unknown;
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (paths === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        for (const path of Array.isArray(paths) ? paths : [paths]) {
          routes.push({
            method,
            path: classPublic ? join(base, path) : join(prefix, base, path),
            controller: controller.name,
            handler: name,
            privilege:
              (Reflect.getMetadata(REQUIRED_PRIVILEGE, handler) as string | undefined) ?? classPrivilege,
            isPublic: classPublic || Reflect.getMetadata(PUBLIC_ROUTE, handler) === true,
          });
        }
      }
    }
  }
  return routes;
}
