import {
  applyDecorators,
  CanActivate,
  ExecutionContext,
  Inject,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import multer from 'multer';
import { readFile } from 'node:fs/promises';
import { finished } from 'node:stream';
import type { Config } from './config';
import { jsonExcessMessage, jsonTextExcess, MAX_JSON_DEPTH } from './json-depth';
import { CONFIG } from './tokens';
import { ApiError, VALIDATION_FAILED } from './api-error';
import { AttachmentStore } from './attachment-store';
import { RequestUploads, setRequestUploads, StreamedToDisk } from './streamed-upload';
import { UploadAdmission } from './upload-admission';
import { MULTIPART_FORM, type MultipartForm } from './api-request-forms';

/** The spec's answer to an upload over its limit. */
export const FILE_TOO_LARGE = 'File size exceeds 10MB limit';

/** The limit on each file sent beside `data_json` (as on a policy upload). */
export const UPLOAD_FILE_LIMIT = 10 * 1024 * 1024;

/**
 * A multipart write declaring at most this many bytes (`Content-Length`) is
 * not counted among the organization's concurrent uploads: most Kosli CLI
 * writes are multipart with data_json alone.
 */
export const UNCOUNTED_UPLOAD_BYTES = 64 * 1024;

/**
 * A file sent beside `data_json`, streamed to a temporary file: the part's
 * field name, its file name and type, where its bytes are, their SHA-256 and
 * size. The route keeps it (`AttachmentStore.adopt`) or reads it back
 * (`readUploadedPart`); a part not adopted is removed when the request ends.
 */
export interface UploadedPart {
  field: string;
  filename: string;
  mimetype: string;
  path: string;
  sha256: string;
  size: number;
}

/** The bytes of a part a route parses (a schema, a template): read back whole, never more than a file may hold. */
export async function readUploadedPart(part: UploadedPart): Promise<Buffer> {
  if (part.size > UPLOAD_FILE_LIMIT) throw new ApiError(413, FILE_TOO_LARGE);
  return readFile(part.path);
}

/** The files of a multipart write, set by DataJsonGuard (none for a JSON body). */
export const uploadedParts = (req: Request): UploadedPart[] =>
  (req as Request & { uploadedParts?: UploadedPart[] }).uploadedParts ?? [];

/** Turns a multipart write (its data_json and files) into the body the route validates. */
export type DataJsonMapper = (
  dataJson: Record<string, unknown>,
  parts: UploadedPart[],
) => unknown | Promise<unknown>;

const DATA_JSON_MAPPER = Symbol('DATA_JSON_MAPPER');

/**
 * The route takes JSON, or multipart with `data_json` (see DataJsonGuard);
 * `mapper`, when given, turns the multipart form into the JSON body, and
 * `form` says how that form reads in the OpenAPI document.
 */
export const AcceptsDataJson = (mapper?: DataJsonMapper, form: MultipartForm = {}) =>
  applyDecorators(
    SetMetadata(DATA_JSON_MAPPER, mapper),
    SetMetadata(MULTIPART_FORM, form),
    UseGuards(DataJsonGuard),
  );

const upload = multer({
  storage: new StreamedToDisk(),
  limits: { fileSize: UPLOAD_FILE_LIMIT, fieldSize: UPLOAD_FILE_LIMIT, files: 10, fields: 10, parts: 20 },
}).any();

/** A multipart write that may carry files enough to count among concurrent uploads (no length declared, or a large one). */
function countsAsUpload(req: Request): boolean {
  const declared = Number(req.headers['content-length']);
  return !(Number.isFinite(declared) && declared <= UNCOUNTED_UPLOAD_BYTES);
}

/** The caller's organization (authentication ran before; every such route names it as `:org`). */
function organizationOf(req: Request): string {
  const principal = (req as Request & { principal?: { org?: string } }).principal;
  return principal?.org ?? String(req.params.org ?? '');
}

/**
 * Evidence writes take JSON, or (as the Kosli CLI sends them) multipart/form-data
 * whose part `data_json` holds the same JSON, beside files such as
 * `attachment_file`, `template_file` or `type_schema`. The JSON becomes the
 * body the route validates; the files are streamed to temporary files for it
 * (`uploadedParts`), within the organization's upload limits
 * (`UploadAdmission`), and removed when the request ends unless the route
 * adopted them. A guard for its place in Nest's order: after authentication,
 * before the idempotency interceptor, which then hashes the files' digests.
 */
@Injectable()
export class DataJsonGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly admission: UploadAdmission,
    private readonly attachments: AttachmentStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!req.is('multipart/form-data')) return true;
    const res = http.getResponse<Response>();
    const tmpDir = await this.attachments.temporaryDir();
    const uploads = new RequestUploads(
      await this.admission.admit(organizationOf(req), countsAsUpload(req)),
      tmpDir,
    );
    setRequestUploads(req, uploads);
    // However the request ends (answered, failed, or its client gone), its place and its leftovers go.
    finished(res, () => void uploads.end());
    await new Promise<void>((resolve, reject) =>
      upload(req, res, (error: unknown) => (error ? reject(multipartRefusal(error)) : resolve())),
    );
    const fields = (req.body ?? {}) as Record<string, unknown>;
    const raw = fields.data_json;
    if (typeof raw !== 'string') {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'send the JSON body in the part data_json' });
    }
    // Refused from its text, as a JSON body is (`jsonTextExcess` in the body parser's verify).
    const { maxKeysPerObject, maxValues } = this.config.json;
    const excess = jsonTextExcess(Buffer.from(raw, 'utf8'), MAX_JSON_DEPTH, maxKeysPerObject, maxValues);
    if (excess) {
      const message = jsonExcessMessage(excess, maxKeysPerObject, maxValues);
      throw new ApiError(400, VALIDATION_FAILED, { data_json: message });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'Malformed JSON' });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, VALIDATION_FAILED, { data_json: 'must be a JSON object' });
    }
    const files = (req.files ?? []) as (Express.Multer.File & { sha256: string })[];
    const parts: UploadedPart[] = files.map((f) => ({
      field: f.fieldname,
      filename: f.originalname,
      mimetype: f.mimetype,
      path: f.path,
      sha256: f.sha256,
      size: f.size,
    }));
    (req as Request & { uploadedParts?: UploadedPart[] }).uploadedParts = parts;
    const mapper = this.reflector.get<DataJsonMapper | undefined>(DATA_JSON_MAPPER, context.getHandler());
    req.body = mapper ? await mapper(body as Record<string, unknown>, parts) : body;
    return true;
  }
}

/** Multer's and busboy's failures as the API's errors: 413 for a file over the limit, else 400. */
export function multipartRefusal(error: unknown): unknown {
  // A limit's refusal from the storage engine (413 request cap, 507 quota), as it is.
  if (error instanceof ApiError) return error;
  if (error instanceof multer.MulterError) {
    if (error.code === 'LIMIT_FILE_SIZE' || error.code === 'LIMIT_FIELD_VALUE')
      return new ApiError(413, FILE_TOO_LARGE);
    return new ApiError(400, VALIDATION_FAILED, { [error.field ?? 'body']: error.message });
  }
  // multer's own, when the client went away mid-body (nobody reads the answer).
  if (error instanceof Error && /^Request (aborted|closed)$/.test(error.message))
    return new ApiError(400, VALIDATION_FAILED, { body: 'the request ended before its body did' });
  // busboy throws plain errors: "Malformed part header", "Unexpected end of form", "Multipart: Boundary not found", …
  if (
    error instanceof Error &&
    /multipart|boundary|unexpected end of form|malformed|part terminated/i.test(error.message)
  )
    return new ApiError(400, VALIDATION_FAILED, { body: `malformed multipart body: ${error.message}` });
  return error;
}
