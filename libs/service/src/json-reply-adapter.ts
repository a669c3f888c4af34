import type { NestApplicationOptions } from '@nestjs/common';
import { StreamableFile } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Application, Response } from 'express';
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

/**
 * Nest on Express, with two costs of Express's own taken off every request:
 *
 * - The server's requests and responses are born with the Express
 *   application's prototypes. Express's `handle` gives each request and
 *   response its own prototype with `Object.setPrototypeOf`; on an object
 *   born with another, V8 changes its map and drops the inline caches of
 *   every function that touches it, which cost a bare Express 5 app three
 *   quarters of its throughput (ADR 0036). Given the prototype it already
 *   has, that call changes nothing.
 * - A handler's JSON answer is written straight to the socket:
 *   `JSON.stringify`, its two headers, `end`. Express's `res.json` then
 *   `res.send` (a charset parse, content negotiation of the type, the
 *   freshness check, Buffer conversion) cost about a sixth of a small read;
 *   the bytes sent are the same. Anything else (no body, a stream, a
 *   Buffer, a string, a status without a body, a type set by the handler)
 *   goes Nest's own way.
 */
export class JsonReplyAdapter extends ExpressAdapter {
  override initHttpServer(options: NestApplicationOptions): void {
    // HTTPS and Nest's connection tracking keep Nest's own server (neither is used here).
    if (options?.httpsOptions || options?.forceCloseConnections) return super.initHttpServer(options);
    // Express's own per-application prototypes (its types do not name them).
    const app = this.getInstance<Application & { request: object; response: object }>();
    this.httpServer = createServer(
      {
        IncomingMessage: bornWith(IncomingMessage, app.request),
        ServerResponse: bornWith(ServerResponse, app.response),
      },
      app,
    );
  }

  override reply(response: Response, body: unknown, statusCode?: number): unknown {
    const status = statusCode ?? response.statusCode;
    if (
      body === null ||
      typeof body !== 'object' ||
      body instanceof StreamableFile ||
      body instanceof Error ||
      Buffer.isBuffer(body) ||
      status === 204 ||
      status === 304 ||
      response.getHeader('Content-Type') !== undefined
    )
      return super.reply(response, body, statusCode);
    const text = JSON.stringify(body);
    response.statusCode = status;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', Buffer.byteLength(text));
    return response.end(response.req.method === 'HEAD' ? undefined : text);
  }
}

/**
 * A constructor of Node's `base` class whose instances are born with
 * `prototype` (Express's request or response of one application, which
 * inherit from `base`'s own prototype). Node's HTTP server accepts such
 * classes for the objects it makes (its `IncomingMessage` and
 * `ServerResponse` options).
 */
function bornWith<T extends typeof IncomingMessage | typeof ServerResponse>(base: T, prototype: object): T {
  if (!(prototype instanceof base)) throw new Error(`${base.name}: Express's prototype does not inherit from it`);
  // A plain function, not a class: a class's prototype cannot be assigned.
  function Born(this: object, ...args: unknown[]) {
    (base as unknown as (...a: unknown[]) => void).apply(this, args);
  }
  Born.prototype = prototype;
  return Born as unknown as T;
}
