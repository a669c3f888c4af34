import { SetMetadata, type Type } from '@nestjs/common';

/** A JSON schema, as the OpenAPI document carries it. */
export type JsonSchema = Record<string, unknown>;

/**
 * How a route's multipart form reads in the OpenAPI document: the part
 * `data_json` (the JSON body's schema unless a mapper turns another shape
 * into it) and the files beside it.
 */
export interface MultipartForm {
  /** The class whose schema `data_json` follows, when it is not the JSON body's. */
  dataJson?: Type;
  /** Each file part by its field name. */
  files?: Record<string, { description: string; required?: boolean; many?: boolean }>;
}

/** `AcceptsDataJson`'s form, read by the document's builder. */
export const MULTIPART_FORM = 'des:multipart-form';

/**
 * One operation per value of a path parameter that picks the body's shape
 * (an attestation's `{type}`): the document declares each value's path with
 * its own id, summary and body schema, so a client is typed per value.
 */
export interface PathVariants {
  param: string;
  variants: Record<
    string,
    { operationId: string; summary: string; schemaName: string; schema: JsonSchema; example?: unknown }
  >;
}

export const PATH_VARIANTS = 'des:path-variants';

export const ApiPathVariants = (variants: PathVariants) => SetMetadata(PATH_VARIANTS, variants);
