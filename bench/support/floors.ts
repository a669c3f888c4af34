import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The small JSON every floor answers at /health/live, as the service's liveness does. */
const LIVE = { status: 'ok' };

@Controller('health')
class LiveController {
  @Get('live')
  live() {
    return LIVE;
  }
}

@Module({ controllers: [LiveController] })
class FloorModule {}

export interface Floor {
  name: string;
  port: number;
  close(): Promise<void>;
}

const portOf = (server: Server) => (server.address() as AddressInfo).port;
const listening = (server: Server) => new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const closing = (server: Server) => new Promise<void>((r) => server.close(() => r()));

/**
 * The reference lines of the request path, in this process, on loopback:
 * bare `node:http`, a bare Express 5 app, and a bare Nest app on Express,
 * each with one route answering the same small JSON.
 */
export async function startFloors(): Promise<Floor[]> {
  const bare = createServer((_req, res) => {
    const text = JSON.stringify(LIVE);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  });
  await listening(bare);

  const app = express();
  app.get('/health/live', (_req, res) => {
    res.json(LIVE);
  });
  const expressServer = createServer(app);
  await listening(expressServer);

  const nest = await NestFactory.create<NestExpressApplication>(FloorModule, { logger: false });
  await nest.listen(0, '127.0.0.1');

  return [
    { name: 'bare node:http', port: portOf(bare), close: () => closing(bare) },
    { name: 'bare Express 5', port: portOf(expressServer), close: () => closing(expressServer) },
    { name: 'bare Nest on Express', port: portOf(nest.getHttpServer() as Server), close: () => nest.close() },
  ];
}
