import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenAPIObject } from '@nestjs/swagger';
import { allowedMethods, withErrorResponses, withOas31Nullability } from './openapi-exact';

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
    assert.deepEqual(Object.keys(get.responses).sort(), ['400', '401', '403', '404', '503']);
    assert.deepEqual(Object.keys(put.responses).sort(), [
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '503',
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
});
