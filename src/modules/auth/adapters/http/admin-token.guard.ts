import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { DomainError } from '../../../../common/errors/domain-error';
import { hashToken, INSTANCE_SECRETS, InstanceSecrets } from '../../../../infrastructure/secrets/instance-secrets';
import { constantTimeEqualHex } from '../../domain/api-key';

@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(INSTANCE_SECRETS) private readonly secrets: InstanceSecrets) {}

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<Request>().headers['x-admin-token'];
    const token = Array.isArray(header) ? header[0] : header;
    if (!token || !constantTimeEqualHex(hashToken(token), this.secrets.adminTokenHash)) {
      throw new DomainError('forbidden', 'A valid X-Admin-Token header is required');
    }
    return true;
  }
}
