import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenAPIObject } from '@nestjs/swagger';
import {
  allowedMethods,
  withErrorResponses,
  withMultipartForms,
  withOas31Nullability,
  withPathVariants,
} from './openapi-exact';

const document = (): OpenAPIObject =>
  ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/api/v2/actions/{org}/{number}': { get: { responses: {} }, delete: { responses: {} } },
      '/api/v2/actions/{org}/environments': {
        put: { responses: {}, requestBody: { content: {} } },
      },
    },
  }) as never;

describe('the exact OpenAPI document', () => {
  it('matches a path to its most specific template first, with the methods it declares', () => {
    const known = allowedMethods(document());
    const match = (path: string) => known.find((k) => k.pattern.test(path))?.allow;
    assert.deepEqual(match('/api/v2/actions/acme/environments'), ['PUT']);
    assert.deepEqual(match('/api/v2/actions/acme/7'), ['GET', 'DELETE', 'HEAD']);
    assert.equal(match('/api/v2/actions/acme/7/more'), undefined);
  });

  it('declares the error body, security, and each error status by what the operation takes', () => {
    const exact = withErrorResponses(document());
    const get = exact.paths['/api/v2/actions/{org}/{number}'].get!;
    const put = exact.paths['/api/v2/actions/{org}/environments'].put!;
    assert.deepEqual(Object.keys(get.responses).sort(), [
      '400',
      '401',
      '403',
      '404',
      '408',
      '431',
      '500',
      '503',
    ]);
    assert.deepEqual(Object.keys(put.responses).sort(), [
      '400',
      '401',
      '403',
      '404',
      '408',
      '409',
      '413',
      '415',
      '422',
      '429',
      '431',
      '500',
      '503',
      '507',
    ]);
    assert.deepEqual(get.security, [{ bearer: [] }, { basic: [] }]);
    assert.ok(exact.components?.schemas?.ErrorBody);
  });

  it('writes nullability as OAS 3.1 does: a type with null, or a nested class or null', () => {
    const doc = {
      ...document(),
      components: {
        schemas: {
          A: {
            type: 'object',
            properties: {
              n: { type: 'number', nullable: true },
              c: { type: 'object', nullable: true, allOf: [{ $ref: '#/components/schemas/B' }] },
              r: { nullable: true, $ref: '#/components/schemas/B' },
              s: { type: 'string' },
            },
          },
        },
      },
    } as never as OpenAPIObject;
    const properties = (withOas31Nullability(doc).components!.schemas!.A as { properties: object })
      .properties;
    assert.deepEqual(properties, {
      n: { type: ['number', 'null'] },
      c: { oneOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
      r: { oneOf: [{ $ref: '#/components/schemas/B' }, { type: 'null' }] },
      s: { type: 'string' },
    });
  });

  it('declares a data_json form beside a JSON body, then one operation per value of a variant path', () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      components: { schemas: {} },
      paths: {
        '/a/{org}/{type}': {
          post: {
            operationId: 'createA',
            parameters: [
              { in: 'path', name: 'org' },
              { in: 'path', name: 'type' },
            ],
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: {},
          },
        },
      },
    } as never as OpenAPIObject;
    const formed = withMultipartForms(doc, () => ({ files: { file: { description: 'f', many: true } } }));
    const variant = (name: string) => ({
      operationId: `create${name}A`,
      summary: name,
      schemaName: `${name}Body`,
      schema: { type: 'object', required: [name] },
    });
    const exact = withPathVariants(formed, (id) =>
      id === 'createA' ? { param: 'type', variants: { x: variant('X'), y: variant('Y') } } : undefined,
    );
    assert.deepEqual(Object.keys(exact.paths), ['/a/{org}/x', '/a/{org}/y']);
    const x = exact.paths['/a/{org}/x'].post!;
    assert.equal(x.operationId, 'createXA');
    assert.deepEqual(
      x.parameters?.map((p) => (p as { name: string }).name),
      ['org'],
    );
    const content = (x.requestBody as { content: Record<string, { schema: Record<string, unknown> }> })
      .content;
    assert.deepEqual(content['application/json'].schema, { $ref: '#/components/schemas/XBody' });
    const form = content['multipart/form-data'].schema as { properties: Record<string, unknown> };
    assert.deepEqual(form.properties.data_json, { $ref: '#/components/schemas/XBody' });
    assert.equal((form.properties.file as { type: string }).type, 'array');
    assert.deepEqual(exact.components!.schemas!.YBody, { type: 'object', required: ['Y'] });
  });
});
