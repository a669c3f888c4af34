import { applyDecorators, type Type } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';

/**
 * A create-or-update PUT in the OpenAPI document: 201 when it created, 200
 * when the resource existed, each answering `type` (the 201 `created` when
 * a creation answers more, e.g. a secret shown once).
 */
export const ApiCreatedOrUpdated = (type: Type, created: Type = type) =>
  applyDecorators(
    ApiCreatedResponse({ type: created, description: 'Created' }),
    ApiOkResponse({ type, description: 'It existed: updated, or left as it was' }),
  );
