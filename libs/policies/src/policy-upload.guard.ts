import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import multer from 'multer';
import { ApiError, multipartRefusal, VALIDATION_FAILED } from '#des/platform';

/** The spec's limit on a policy upload. */
export const POLICY_UPLOAD_LIMIT = 10 * 1024 * 1024;

/** The policy file: uploaded as `policy_file.0` (or `policy_file`), or sent as the text field `policy_file`. */
const upload = multer({
  storage: multer.memoryStorage(),
  limits: { fileSize: POLICY_UPLOAD_LIMIT, fieldSize: POLICY_UPLOAD_LIMIT, files: 1, fields: 10, parts: 12 },
}).fields([
  { name: 'policy_file.0', maxCount: 1 },
  { name: 'policy_file', maxCount: 1 },
]);

/**
 * Parses endpoint 8's multipart body with multer (busboy underneath). An
 * upload over the limit is refused as soon as its bytes pass the limit, so no
 * more than 10 MB of it is ever held. It is a guard only for its place in
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
    await new Promise<void>((resolve, reject) =>
      upload(req, http.getResponse<Response>(), (error: unknown) =>
        error ? reject(multipartRefusal(error)) : resolve(),
      ),
    );
    return true;
  }
}
