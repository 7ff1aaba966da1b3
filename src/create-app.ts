import { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { json, Request, Response, urlencoded } from 'express';
import { AppModule, AppModuleOptions } from './app.module';
import { AllExceptionsFilter } from './common/http/all-exceptions.filter';
import { requestIdMiddleware } from './common/http/request-id';
import { createValidationPipe } from './common/http/validation';
import { UsageRecorder } from './modules/usage/application/usage-recorder';
import { usageMiddleware } from './modules/usage/adapters/http/usage-tracking';

export function buildOpenApi(app: INestApplication) {
  const document = new DocumentBuilder()
    .setTitle('Backdrop API')
    .setDescription('Remove or replace the background of videos: upload, create a job, poll or receive webhooks, download.')
    .setVersion('1.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-Token' }, 'adminToken')
    .build();
  return SwaggerModule.createDocument(app, document);
}

/** A provider that exists only in some roles (the API's usage recorder is absent from a worker). */
function optionalProvider<T>(app: INestApplication, token: new (...args: never[]) => T): T | undefined {
  try {
    return app.get(token, { strict: false });
  } catch {
    return undefined;
  }
}

/** Applies everything an HTTP app of Backdrop needs: request ids, body limits, the error envelope, validation, docs. */
export function configureHttp(app: NestExpressApplication, jsonBodyLimit: string): void {
  app.use(requestIdMiddleware);
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(json({ limit: jsonBodyLimit, type: ['application/json', 'application/*+json'] }));
  app.use(urlencoded({ extended: false, limit: jsonBodyLimit }));
  const recorder = optionalProvider(app, UsageRecorder);
  if (recorder) app.use('/v1', usageMiddleware(recorder));
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(createValidationPipe());
  const document = buildOpenApi(app);
  app.getHttpAdapter().getInstance().get('/openapi.json', (_req: Request, res: Response) => res.json(document));
  SwaggerModule.setup('docs', app, document, { swaggerOptions: { persistAuthorization: true } });
}

/** Nest's own start-up chatter (every module and route) only at debug and below. */
export function nestLogLevels(level: string): LogLevel[] {
  const order: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
  const limit = { silent: -1, fatal: 0, error: 1, warn: 2, info: 2, debug: 4, trace: 5 }[level] ?? 2;
  return order.slice(0, limit + 1);
}

/** Unknown routes answer 404 in the envelope (Nest's own 404 goes through the global filter). */
export async function createApp(options: AppModuleOptions): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(options), { bodyParser: false, logger: nestLogLevels(options.config.env.LOG_LEVEL) });
  configureHttp(app, options.config.env.JSON_BODY_LIMIT);
  app.enableShutdownHooks();
  return app;
}

