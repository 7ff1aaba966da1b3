import { SetMetadata } from '@nestjs/common';

export const IDEMPOTENT = 'backdrop:idempotent';

/** The route honours an Idempotency-Key header (contract: Idempotency). */
export const Idempotent = (): MethodDecorator => SetMetadata(IDEMPOTENT, true);
