import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse } from '@nestjs/swagger';

/** A create-or-update PUT in the OpenAPI document: 201 when it created, 200 when the resource existed. */
export const ApiCreatedOrUpdated = () =>
  applyDecorators(
    ApiCreatedResponse({ description: 'Created' }),
    ApiOkResponse({ description: 'It existed: updated, or left as it was' }),
  );
