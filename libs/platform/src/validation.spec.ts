import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidationError } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { ApiError } from './api-error';
import { fieldErrors, validationPipe } from './validation';
import { AtQuery } from './at-query';

describe('fieldErrors', () => {
  it('names nested and array fields by path', () => {
    const errors: ValidationError[] = [
      {
        property: 'context',
        children: [
          {
            property: 'trails',
            children: [
              {
                property: '0',
                children: [{ property: 'flow', constraints: { matches: 'bad flow' }, children: [] }],
              },
            ],
          },
        ],
      },
      {
        property: 'policy',
        constraints: { isDefined: 'policy should not be null', isObject: 'must be an object' },
        children: [],
      },
    ];
    assert.deepEqual(fieldErrors(errors), {
      'context.trails[0].flow': 'bad flow',
      policy: 'policy should not be null; must be an object',
    });
  });
});

class PagedQuery {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Type(() => Number)
  page?: number;
}

class NamedQuery {
  @IsString()
  name!: string;
}

describe('validationPipe', () => {
  const query = (metatype: new () => object) => ({ type: 'query' as const, metatype });

  it('gives an empty query a fresh instance of its class each time, as validating it would', async () => {
    const pipe = validationPipe();
    const first = await pipe.transform({}, query(PagedQuery));
    const second = await pipe.transform({}, query(PagedQuery));
    assert.ok(first instanceof PagedQuery && second instanceof PagedQuery);
    assert.notEqual(first, second);
    assert.deepEqual({ ...(second as object) }, { ...(first as object) });
    // A query that is not empty is validated and transformed as ever.
    assert.deepEqual(
      { ...((await pipe.transform({ page: '2' }, query(PagedQuery))) as object) },
      { page: 2 },
    );
    await assert.rejects(pipe.transform({ page: '0' }, query(PagedQuery)), ApiError);
  });

  it('refuses an empty query every time when its class requires a field', async () => {
    const pipe = validationPipe();
    for (let i = 0; i < 2; i++) {
      await assert.rejects(pipe.transform({}, query(NamedQuery)), (error: unknown) => {
        assert.ok(error instanceof ApiError);
        assert.deepEqual(Object.keys(error.errors ?? {}), ['name']);
        return true;
      });
    }
  });

  it('answers a query that passed with a fresh instance of the same fields, lists copied', async () => {
    const pipe = validationPipe();
    const first = (await pipe.transform({ page: '3' }, query(PagedQuery))) as PagedQuery;
    first.page = 99; // a handler changing its instance changes no later answer
    const second = await pipe.transform({ page: '3' }, query(PagedQuery));
    assert.ok(second instanceof PagedQuery);
    assert.deepEqual({ ...second }, { page: 3 });
    await assert.rejects(pipe.transform({ page: '3', extra: 'x' }, query(PagedQuery)), ApiError);
  });

  it('validates again a query that failed: an instant in the future passes once it is past', async () => {
    const pipe = validationPipe();
    const soon = String(Math.ceil(Date.now() / 1000) + 7);
    await assert.rejects(pipe.transform({ at: soon }, query(AtQuery)), ApiError);
    const now = Date.now;
    Date.now = () => now() + 10_000;
    try {
      assert.deepEqual(
        { ...((await pipe.transform({ at: soon }, query(AtQuery))) as object) },
        { at: Number(soon) },
      );
    } finally {
      Date.now = now;
    }
  });
});
