import { raw, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import {
  ApiError,
  inRequest,
  jsonExcessMessage,
  JsonTextRefused,
  parseJsonInSlices,
  type SlicedJsonLimits,
  VALIDATION_FAILED,
} from '#des/platform';
import { orgCheckedAtTheGate } from '#des/accounts';
import { announcesBody } from './early-refusals';

export interface JsonBodyOptions {
  /** The parser's limit on a body's bytes (as body-parser reads it: `10mb`). */
  limit: string;
  /** The shape limits of the body's JSON. */
  shape: SlicedJsonLimits;
  /** A check of the body's text before it is parsed (it throws the refusal); may take turns. */
  check?: (req: Request, text: Buffer) => void | Promise<void>;
}

/**
 * JSON request bodies: read whole (within the limit, inflated when sent
 * compressed, by body-parser), then, inside the request's context, checked
 * and parsed in slices that give the event loop turns (ADR 0047), so a 10 MB
 * body never holds everyone's requests for the time of its parse. A body
 * past its shape limits or not JSON is answered 400 with the spec's error
 * body; a JSON `null` (the Kosli CLI's body on DELETE and archive) reads as
 * no body, any other bare value is refused (bodies are objects or arrays). A request without a body enters its
 * context at once. A body another mount read already passes through.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const read = raw({ type: 'application/json', limit: options.limit });
  return (req: Request, res: Response, next: NextFunction): void => {
    const id = (req as Request & { id: string }).id;
    const org = orgCheckedAtTheGate(req);
    if (parsed.has(req)) return next();
    if (!announcesBody(req)) return inRequest(id, next, org);
    const charset = charsetOf(req);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && req.is('application/json'))
      return next(new ApiError(415, `Unsupported charset "${charset.toUpperCase()}": JSON bodies are UTF-8`));
    void read(req, res, (error?: unknown) => {
      if (error) return next(error);
      const text: unknown = req.body;
      if (!Buffer.isBuffer(text)) return inRequest(id, next, org);
      parsed.add(req);
      req.body = undefined;
      inRequest(
        id,
        () => {
          parse(req, text, options).then(
            (body) => {
              req.body = body;
              next();
            },
            (refusal: unknown) => next(refusal),
          );
        },
        org,
      );
    });
  };
}

const parsed = new WeakSet<Request>();

async function parse(req: Request, text: Buffer, options: JsonBodyOptions): Promise<unknown> {
  await options.check?.(req, text);
  let body: unknown;
  try {
    body = await parseJsonInSlices(text, options.shape);
  } catch (error) {
    if (!(error instanceof JsonTextRefused)) throw error;
    const message =
      error.excess === 'malformed'
        ? 'Malformed JSON'
        : jsonExcessMessage(error.excess, options.shape.maxKeys, options.shape.maxNodes);
    throw new ApiError(400, VALIDATION_FAILED, { body: message });
  }
  if (body === null) return {};
  if (typeof body !== 'object') throw new ApiError(400, VALIDATION_FAILED, { body: 'Malformed JSON' });
  return body;
}

function charsetOf(req: Request): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '');
  return match?.[1].toLowerCase();
}
