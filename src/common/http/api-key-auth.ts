import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';

/** The key a request authenticated with, as every module's handlers see it (the auth module's ApiKey is one). */
export interface AuthenticatedKey {
  id: string;
  /** first hex digits of the key's hash: safe to log */
  fingerprint: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    apiKey?: AuthenticatedKey;
    /** the key's refusal where it was looked up before the route (the rate limit's count before the body) */
    apiKeyRefusal?: Error;
  }
}

/** Port: the key a presented X-Api-Key names, or a DomainError `unauthorized`. The auth module binds it. */
export abstract class ApiKeyAuthenticator {
  abstract authenticate(presented: string | undefined): Promise<AuthenticatedKey>;
  /** whether `presented` is an enabled key this process authenticates from memory, with no lookup (one in use) */
  abstract answersFromMemory(presented: string): boolean;
}

/** Authenticates X-Api-Key; the key is then available to handlers through @CurrentKey(). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly keys: ApiKeyAuthenticator) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    await this.authenticate(context.switchToHttp().getRequest<Request>());
    return true;
  }

  /** The request's key, also kept on the request; what canActivate does, for a route served outside Nest's router. */
  async authenticate(req: Request): Promise<AuthenticatedKey> {
    // looked up already for this request (the rate limit's count before the body): not twice
    if (req.apiKeyRefusal) throw req.apiKeyRefusal;
    if (req.apiKey) return req.apiKey;
    const header = req.headers['x-api-key'];
    req.apiKey = await this.keys.authenticate(Array.isArray(header) ? header[0] : header);
    return req.apiKey;
  }
}

export const CurrentKey = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedKey => {
  const key = context.switchToHttp().getRequest<Request>().apiKey;
  if (!key) throw new Error('CurrentKey used on a route without ApiKeyGuard');
  return key;
});
