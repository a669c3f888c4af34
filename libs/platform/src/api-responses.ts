import { ApiOkResponse } from '@nestjs/swagger';

/** A 200 whose body is a file: a PDF (bytes) or a CSV (text), as the document should type it. */
export const ApiFileResponse = (
  mediaType: 'application/pdf' | 'application/zip' | 'text/csv',
  description: string,
) =>
  ApiOkResponse({
    description,
    content: {
      [mediaType]: {
        schema: mediaType === 'text/csv' ? { type: 'string' } : { type: 'string', format: 'binary' },
      },
    },
  });
