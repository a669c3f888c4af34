import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ValidationError } from '@nestjs/common';
import { fieldErrors } from './validation';

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
