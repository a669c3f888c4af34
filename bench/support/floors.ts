import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import { createServer, type Server } from 'node:http';
import { JsonReplyAdapter } from '#des/service';
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

export const FLOOR_NAMES = [
  'bare node:http',
  'bare Express 5',
  'bare Nest on Express',
  "bare Nest on the service's adapter",
] as const;
export type FloorName = (typeof FLOOR_NAMES)[number];

/**
 * The reference lines of the request path, on loopback: bare `node:http`, a
 * bare Express 5 app, a bare Nest app on Express, and the same Nest app on
 * the service's adapter (requests born with Express's prototypes, JSON
 * written directly: ADR 0034, ADR 0036), each with one route answering the
 * same small JSON. The last is the least Nest on Express costs here.
 */
export async function startFloors(): Promise<Floor[]> {
  const floors: Floor[] = [];
  for (const name of FLOOR_NAMES) floors.push(await startFloor(name));
  return floors;
}

export async function startFloor(name: FloorName): Promise<Floor> {
  if (name === 'bare node:http') {
    const bare = createServer((_req, res) => {
      const text = JSON.stringify(LIVE);
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    });
    await listening(bare);
    return { name, port: portOf(bare), close: () => closing(bare) };
  }
  if (name === 'bare Express 5') {
    const app = express();
    app.get('/health/live', (_req, res) => {
      res.json(LIVE);
    });
    const server = createServer(app);
    await listening(server);
    return { name, port: portOf(server), close: () => closing(server) };
  }
  const adapter = name === 'bare Nest on Express' ? new ExpressAdapter() : new JsonReplyAdapter();
  const nest = await NestFactory.create<NestExpressApplication>(FloorModule, adapter, { logger: false });
  await nest.listen(0, '127.0.0.1');
  return { name, port: portOf(nest.getHttpServer() as Server), close: () => nest.close() };
}
