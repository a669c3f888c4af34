import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import multer from 'multer';
import { textNestsDeeperThan, TOO_DEEP } from './json-depth';
import { ApiError, VALIDATION_FAILED } from './api-error';

/** The spec's answer to an upload over its limit. */
export const FILE_TOO_LARGE = 'File size exceeds 10MB limit';

/** The limit on each file sent beside `data_json` (as on a policy upload). */
export const UPLOAD_FILE_LIMIT = 10 * 1024 * 1024;

/** A file sent beside `data_json`: the part's field name, its file name, its bytes. */
export interface UploadedPart {
  field: string;
  filename: string;
  content: Buffer;
}

/** The files of a multipart write, set by DataJsonGuard (none for a JSON body). */
export const uploadedParts = (req: Request): UploadedPart[] =>
  (req as Request & { uploadedParts?: UploadedPart[] }).uploadedParts ?? [];

/** Turns a multipart write (its data_json and files) into the body the route validates. */
export type DataJsonMapper = (dataJson: Record<string, unknown>, parts: UploadedPart[]) => unknown;

const DATA_JSON_MAPPER = Symbol('DATA_JSON_MAPPER');

/**
 * The route takes JSON, or multipart with `data_json` (see DataJsonGuard);
 * `mapper`, when given, turns the multipart form into the JSON body.
 */
export const AcceptsDataJson = (mapper?: DataJsonMapper) =>
  applyDecorators(SetMetadata(DATA_JSON_MAPPER, mapper), UseGuards(DataJsonGuard));

const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: UPLOAD_FILE_LIMIT, fieldSize: UPLOAD_FILE_LIMIT, files: 10, fields: 10, parts: 20 },
}).any();

/**
 * Evidence writes take JSON, or (as the Kosli CLI sends them) multipart/form-data
 * whose part `data_json` holds the same JSON, beside files such as
 * `attachment_file`, `template_file` or `type_schema`. The JSON becomes the
 * body the route validates; the files are kept for it (`uploadedParts`). A
 * guard for its place in Nest's order: after authentication, before the
 * idempotency interceptor, which then hashes the files too.
 */
@Injectable()
export class DataJsonGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!req.is('multipart/form-data')) return true;
    await new Promise<void>((resolve, reject) =>
      upload(req, http.getResponse<Response>(), (error: unknown) =>
        error ? reject(multipartRefusal(error)) : resolve(),
      ),
    );
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const raw = fields.data_json;
    if (typeof raw !== 'string') {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'send the JSON body in the part data_json' });
    }
    // Refused from its text, as a JSON body is (`textNestsDeeperThan` in the body parser's verify).
    if (textNestsDeeperThan(Buffer.from(raw, 'utf8')))
      throw new ApiError(400, VALIDATION_FAILED, { data_json: TOO_DEEP });
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'Malformed JSON' });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'must be a JSON object' });
    }
    const files = (req.files ?? []) as Express.Multer.File[];
    const parts = files.map((f) => ({ field: f.fieldname, filename: f.originalname, content: f.buffer }));
    (req as Request & { uploadedParts?: UploadedPart[] }).uploadedParts = parts;
    const mapper = this.reflector.get<DataJsonMapper | undefined>(DATA_JSON_MAPPER, context.getHandler());
    req.body = mapper ? mapper(body as Record<string, unknown>, parts) : body;
    return true;
  }
}

/** Multer's and busboy's failures as the API's errors: 413 for a file over the limit, else 400. */
export function multipartRefusal(error: unknown): unknown {
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE' || error.code === 'LIMIT_FIELD_VALUE')
      return new ApiError(413, FILE_TOO_LARGE);
    return new ApiError(400, VALIDATION_FAILED, { [error.field ?? 'body']: error.message });
  }
  // busboy throws plain errors: "Malformed part header", "Unexpected end of form", "Multipart: Boundary not found", …
  if (
    error instanceof Error &&
    /multipart|boundary|unexpected end of form|malformed|part terminated/i.test(error.message)
  )
    return new ApiError(400, VALIDATION_FAILED, { body: `malformed multipart body: ${error.message}` });
  return error;
}
