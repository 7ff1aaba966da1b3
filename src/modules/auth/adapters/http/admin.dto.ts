import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { MAX_CREDITS_AT_ONCE } from '../../domain/api-key';

export class CreateKeyDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  client_id!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(500)
  note?: string;

  @ApiPropertyOptional({ default: 0, minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_CREDITS_AT_ONCE)
  credits?: number;
}

export class KeyFingerprintDto {
  @ApiProperty({ description: '12 hex characters' })
  @IsString()
  @Matches(/^[0-9a-f]{12}$/, { message: 'key_fingerprint must be 12 lowercase hex characters' })
  key_fingerprint!: string;
}

export class GrantCreditsDto extends KeyFingerprintDto {
  @ApiProperty({ description: 'credits to add; negative deducts, never below zero' })
  @IsInt()
  @Min(-MAX_CREDITS_AT_ONCE)
  @Max(MAX_CREDITS_AT_ONCE)
  credits!: number;
}
