import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainToInstance, Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ApiError } from './api-error';
import { FreeForm, fieldPath, structuredExcess } from './free-form';
import { MAX_STRUCTURED_OBJECT_KEYS, MAX_STRUCTURED_VALUES } from './json-depth';
import { validationPipe } from './validation';

class Link {
  @IsOptional() @IsString() url?: string;
  @IsOptional() @IsObject() @FreeForm() extra?: Record<string, unknown>;
}

class Evidence {
  @IsString() name!: string;
  @IsOptional() @IsObject() @FreeForm() user_data?: Record<string, unknown>;
  @IsOptional() @IsObject() tags?: Record<string, string>;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => Link) links?: Link[];
}

/** The same field, not free-form: copied by class-transformer. */
class Copied {
  @IsOptional() @IsObject() user_data?: Record<string, unknown>;
}

const wide = (keys: number) =>
  Object.fromEntries(Array.from({ length: keys }, (_, i) => [`src/file${i}.ts`, { lines: 0.9 }]));

const pipe = validationPipe();
const validate = (body: unknown) => pipe.transform(body, { type: 'body', metatype: Evidence });

/** The fastest of a few runs of `work`, in ms (the least disturbed by the machine). */
async function fastest(work: () => Promise<unknown>, runs = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await work();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('free-form fields', () => {
  it('are handed over as sent, and still validated', async () => {
    const user_data = wide(3);
    const links = [{ url: 'u', extra: { a: [1, { b: 2 }] } }];
    const dto = (await validate({ name: 'n', user_data, links })) as Evidence;
    assert.ok(dto instanceof Evidence);
    assert.equal(dto.user_data, user_data);
    assert.ok(dto.links?.[0] instanceof Link);
    assert.deepEqual(dto.links?.[0].extra, { a: [1, { b: 2 }] });
    await assert.rejects(validate({ name: 'n', user_data: 'text' }), ApiError);
    await assert.rejects(validate({ name: 'n', unknown: 1 }), ApiError);
  });

  it('cost the validation pipe a fraction of a copy, growing about linearly (1× and 4×: figures printed)', async () => {
    const small = { name: 'n', user_data: wide(5_000) };
    const large = { name: 'n', user_data: wide(20_000) };
    await validate(small);
    const smallMs = await fastest(() => validate(small));
    const largeMs = await fastest(() => validate(large));
    // What the pipe spent before: class-transformer's copy of the same field, key by key.
    const copyMs = await fastest(async () => plainToInstance(Copied, large), 1);
    console.log(
      `# user_data of 5,000 keys ${smallMs.toFixed(1)} ms, 20,000 keys ${largeMs.toFixed(1)} ms; copied: ${copyMs.toFixed(0)} ms`,
    );
    // Timing ratios at these sizes vary with caches and load: only a wide margin is asserted.
    assert.ok(largeMs * 4 < copyMs, `free-form ${largeMs.toFixed(1)} ms, copied ${copyMs.toFixed(1)} ms`);
  });

  it('leave objects outside them held to MAX_STRUCTURED_OBJECT_KEYS, named by path', async () => {
    const max = MAX_STRUCTURED_OBJECT_KEYS;
    const limits = { maxKeys: max, maxValues: MAX_STRUCTURED_VALUES };
    const tags = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, 'v']));
    const keysAt = (value: unknown) => {
      const found = structuredExcess(value, Evidence, limits);
      return found && (assert.equal(found.excess, 'keys'), found.path);
    };
    assert.equal(keysAt({ name: 'n', tags: tags(max), user_data: wide(max * 40) }), undefined);
    assert.deepEqual(keysAt({ name: 'n', tags: tags(max + 1) }), ['tags']);
    const links = [{}, { url: 'u', more: { deeper: tags(max + 1) } }];
    assert.deepEqual(keysAt({ links }), ['links', 1, 'more', 'deeper']);
    assert.deepEqual(keysAt({ links: [{ extra: wide(max + 1) }] }), undefined);
    assert.deepEqual(keysAt(tags(max + 1)), []);
    await assert.rejects(validate({ name: 'n', tags: tags(max + 1) }), (error: ApiError) => {
      assert.equal(error.getStatus(), 400);
      assert.deepEqual(error.errors, {
        tags: `JSON object with more than ${max} keys outside a free-form field`,
      });
      return true;
    });
  });

  it('leave the values outside them held to MAX_STRUCTURED_VALUES in all', async () => {
    const limits = { maxKeys: MAX_STRUCTURED_OBJECT_KEYS, maxValues: MAX_STRUCTURED_VALUES };
    const links = (n: number) => Array.from({ length: n }, () => ({ url: 'u' }));
    // The body, the list and each link with its url: 2 + 2n values.
    const most = (MAX_STRUCTURED_VALUES - 2) / 2;
    assert.equal(structuredExcess({ links: links(most) }, Evidence, limits), undefined);
    assert.deepEqual(structuredExcess({ links: links(most + 1) }, Evidence, limits), {
      excess: 'values',
      path: [],
    });
    const user_data = { many: Array(MAX_STRUCTURED_VALUES * 2).fill(1) };
    assert.equal(structuredExcess({ name: 'n', user_data }, Evidence, limits), undefined);
    await assert.rejects(
      validate({ name: 'n', tags: { a: 'b' }, links: links(most + 1) }),
      (error: ApiError) => {
        assert.deepEqual(error.errors, {
          body: `JSON with more than ${MAX_STRUCTURED_VALUES} values outside free-form fields`,
        });
        return true;
      },
    );
  });

  it('name the path bounded, whatever the keys sent', () => {
    assert.equal(fieldPath([]), 'body');
    assert.equal(fieldPath(['links', 1, 'more']), 'links[1].more');
    assert.equal(fieldPath(['x'.repeat(10_000)]).length, 201);
  });
});
