import { ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, FieldError } from '../errors/domain-error';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/** DTO validation answering 400 invalid_request with one `{field, message}` per problem. Unknown fields are dropped, never an error. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: false,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      const message = details.length ? details.map((d) => `${d.field}: ${d.message}`).join('; ') : 'Invalid request';
      return new DomainError('invalid_request', message, details);
    },
  });
}
