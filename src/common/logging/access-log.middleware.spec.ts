import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import pino from 'pino';
import { accessLogMiddleware } from './access-log.middleware';

/** the level of the access line written for a response with `status` */
function levelOf(status: number): number {
  const lines: Array<{ level: number; status: number }> = [];
  const logger = pino({}, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const res = Object.assign(new EventEmitter(), { statusCode: status, writableFinished: true, getHeader: () => undefined });
  const req = { method: 'GET', originalUrl: '/v1/jobs', requestId: 'req_1', headers: {} };
  accessLogMiddleware(logger)(req as unknown as Request, res as unknown as Response, (() => undefined) as NextFunction);
  res.emit('finish');
  expect(lines).toHaveLength(1);
  expect(lines[0].status).toBe(status);
  return lines[0].level;
}

describe('access log', () => {
  it('writes a 503 (a dependency away, logged once by the exception filter) as a warning, other 5xx as errors, the rest as info', () => {
    expect(levelOf(503)).toBe(pino.levels.values.warn);
    expect(levelOf(500)).toBe(pino.levels.values.error);
    expect(levelOf(502)).toBe(pino.levels.values.error);
    expect(levelOf(404)).toBe(pino.levels.values.info);
    expect(levelOf(200)).toBe(pino.levels.values.info);
  });
});
