import { ApiError } from '#des/platform';

export const UNAUTHORIZED = 'Invalid or missing API key';
const CHALLENGE = 'Bearer realm="delivery-evidence-service", Basic realm="delivery-evidence-service"';

/** 401 with the challenge naming both schemes the API takes. */
export function unauthorized(): ApiError {
  return new ApiError(401, UNAUTHORIZED, null, { 'WWW-Authenticate': CHALLENGE });
}
