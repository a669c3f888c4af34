import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import multer from 'multer';
import { ApiError, multipartRefusal, VALIDATION_FAILED, YAML_LIMITS } from '#des/platform';
import { policyTooLarge } from './policy-document';

/** The spec's limit on a policy upload. */
export const POLICY_UPLOAD_LIMIT = 10 * 1024 * 1024;

/**
 * The policy file: uploaded as `policy_file.0` (or `policy_file`), or sent as
 * the text field `policy_file`; no part is held past the YAML size limit.
 */
const upload = multer({
  storage: multer.memoryStorage(),
  limits: {
    fileSize: YAML_LIMITS.maxBytes,
    fieldSize: YAML_LIMITS.maxBytes,
    files: 1,
    fields: 10,
    parts: 12,
  },
}).fields([
  { name: 'policy_file.0', maxCount: 1 },
  { name: 'policy_file', maxCount: 1 },
]);

/**
 * Parses endpoint 8's multipart body with multer (busboy underneath). A part
 * over the YAML size limit is refused as soon as its bytes pass it, so no more
 * than that is ever held; the rest of the body is drained and counted, and a
 * body over the spec's 10 MB gets the spec's answer. It is a guard only for its place in
 * Nest's order: after the global authentication guard (nothing is parsed for
 * a caller without the privilege) and before every interceptor, so the
 * idempotency interceptor hashes the parsed parts, the file included.
 */
@Injectable()
export class PolicyUploadGuard implements CanActivate {
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    if (!req.is('multipart/form-data')) {
      throw new ApiError(400, VALIDATION_FAILED, {
        body: 'send multipart/form-data with the parts payload and policy_file.0',
      });
    }
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      upload(req, http.getResponse<Response>(), (error: unknown) =>
        error ? reject(this.refusal(error, received)) : resolve(),
      );
      // Counted beside multer's own reading (attached in the same tick, so no chunk is missed).
      req.on('data', (chunk: Buffer) => (received += chunk.length));
    });
    return true;
  }

  private refusal(error: unknown, received: number): unknown {
    const refused = multipartRefusal(error);
    if (refused instanceof ApiError && refused.getStatus() === 413 && received <= POLICY_UPLOAD_LIMIT)
      return policyTooLarge(YAML_LIMITS);
    return refused;
  }
}
