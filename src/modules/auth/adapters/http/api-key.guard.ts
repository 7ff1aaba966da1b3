import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { ApiKeysService } from '../../application/api-keys.service';
import { ApiKey } from '../../domain/api-key';

declare module 'express-serve-static-core' {
  interface Request {
    apiKey?: ApiKey;
  }
}

/** Authenticates X-Api-Key; the key is then available to handlers through @CurrentKey(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeysService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const header = req.headers['x-api-key'];
    req.apiKey = await this.keys.authenticate(Array.isArray(header) ? header[0] : header);
    return true;
  }
}

export const CurrentKey = createParamDecorator((_data: unknown, context: ExecutionContext): ApiKey => {
  const key = context.switchToHttp().getRequest<Request>().apiKey;
  if (!key) throw new Error('CurrentKey used on a route without ApiKeyGuard');
  return key;
});
