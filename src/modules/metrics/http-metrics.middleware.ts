import type { NextFunction, Request, Response } from 'express';
import { MetricsService } from './metrics.service';

/** Observes each request's latency under its route template (`/v1/jobs/:id`), never the raw path. */
export function httpMetricsMiddleware(metrics: MetricsService) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      stop({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
