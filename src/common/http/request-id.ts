import type { NextFunction, Request, Response } from 'express';
import { newRequestId } from '../ids';

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

/** Every response carries X-Request-Id; the error envelope repeats it. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = newRequestId();
  req.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
}

export function requestIdOf(req: Request): string {
  return req.requestId ?? newRequestId();
}
