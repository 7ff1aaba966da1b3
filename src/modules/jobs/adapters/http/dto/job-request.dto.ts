import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  Allow,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  maxLength,
  Validate,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { isHexColour, isNumberTriple } from '../../../../../contract/colour';
import { JOB_STATUSES } from '../../../../../contract/job-status';
import { ANCHORS, BG_TYPES, CANVAS_SIDE, MODELS, OUTPUT_FORMATS, PREVIEW_SECONDS } from '../../../domain/job-settings';

const HTTP_URL = { protocols: ['http', 'https'], require_protocol: true, require_tld: false, allow_underscores: true };
const MAX_URL_LENGTH = 2048;
export const METADATA_LIMITS = { keys: 20, keyLength: 100, valueLength: 500 } as const;


@ValidatorConstraint({ name: 'metadata' })
class MetadataShape implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const entries = Object.entries(value);
    return (
      entries.length <= METADATA_LIMITS.keys &&
      // characters as text_prompt's limit (@MaxLength) counts them: an emoji is one (UTF-16 counted it as two)
      entries.every(([key, item]) => key.length > 0 && maxLength(key, METADATA_LIMITS.keyLength) && typeof item === 'string' && maxLength(item, METADATA_LIMITS.valueLength))
    );
  }
  defaultMessage(): string {
    return `metadata must be an object of at most ${METADATA_LIMITS.keys} keys (1-${METADATA_LIMITS.keyLength} characters) with string values of at most ${METADATA_LIMITS.valueLength} characters`;
  }
}

/**
 * metadata as the client sent it: class-transformer's copy drops keys that name Object.prototype's
 * members (`toString`, `valueOf`), so they were not echoed. (`__proto__` and `constructor` are
 * stripped before, by Nest's ValidationPipe, as a guard against prototype pollution.)
 */
function ownEntriesOf(value: unknown): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : value;
}

@ValidatorConstraint({ name: 'rgb' })
class RgbShape implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isNumberTriple(value);
  }
  defaultMessage(): string {
    return 'bg_color must be an array of three numbers: all in [0,1] (normalized) or integers in 0..255';
  }
}

@ValidatorConstraint({ name: 'color' })
class ColorShape implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return isHexColour(value) || isNumberTriple(value);
  }
  defaultMessage(): string {
    return 'color must be "#RRGGBB" or an array of three numbers';
  }
}

export class BackgroundDto {
  @ApiProperty({ enum: ['transparent', 'color', 'image'] })
  @IsIn(['transparent', 'color', 'image'])
  type!: 'transparent' | 'color' | 'image';

  @ApiPropertyOptional({ description: '"#RRGGBB", or [r,g,b] normalized 0..1 or 0..255', oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }] })
  @IsOptional()
  @Validate(ColorShape)
  color?: string | number[];

  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, description: 'http(s) URL of the background image (type image)' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL)
  image_url?: string;
}

export class CanvasDto {
  @ApiProperty({ minimum: CANVAS_SIDE.min, maximum: CANVAS_SIDE.max })
  @IsInt()
  @Min(CANVAS_SIDE.min)
  @Max(CANVAS_SIDE.max)
  width!: number;

  @ApiProperty({ minimum: CANVAS_SIDE.min, maximum: CANVAS_SIDE.max })
  @IsInt()
  @Min(CANVAS_SIDE.min)
  @Max(CANVAS_SIDE.max)
  height!: number;
}

/** canvas pixels a foreground may be moved by, either way */
const MAX_OFFSET = 8192;

export class OffsetDto {
  @ApiPropertyOptional({ default: 0, minimum: -MAX_OFFSET, maximum: MAX_OFFSET })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-MAX_OFFSET)
  @Max(MAX_OFFSET)
  x?: number;

  @ApiPropertyOptional({ default: 0, minimum: -MAX_OFFSET, maximum: MAX_OFFSET })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(-MAX_OFFSET)
  @Max(MAX_OFFSET)
  y?: number;
}

export class ForegroundDto {
  @ApiPropertyOptional({ enum: ANCHORS, default: 'center' })
  @IsOptional()
  @IsIn(ANCHORS)
  anchor?: (typeof ANCHORS)[number];

  @ApiPropertyOptional({ default: 1, minimum: 0.01, maximum: 10, description: '1 = the foreground fitted into the canvas' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0.01)
  @Max(10)
  scale?: number;

  @ApiPropertyOptional({ type: OffsetDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OffsetDto)
  offset?: OffsetDto;
}

export class CompositionDto {
  @ApiPropertyOptional({ type: CanvasDto, description: 'defaults to the video size' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CanvasDto)
  canvas?: CanvasDto;

  @ApiPropertyOptional({ type: ForegroundDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ForegroundDto)
  foreground?: ForegroundDto;
}

/** Fields accepted both at create and as start overrides. */
export class JobOptionsDto {
  @ApiPropertyOptional({ enum: OUTPUT_FORMATS, default: 'webm' })
  @IsOptional()
  @IsIn(OUTPUT_FORMATS)
  output_format?: (typeof OUTPUT_FORMATS)[number];

  @ApiPropertyOptional({ enum: MODELS, default: 'original' })
  @IsOptional()
  @IsIn(MODELS)
  model?: (typeof MODELS)[number];

  @ApiPropertyOptional({ enum: BG_TYPES, default: 'transparent', description: '`background` wins when both are sent' })
  @IsOptional()
  @IsIn(BG_TYPES)
  bg_type?: (typeof BG_TYPES)[number];

  @ApiPropertyOptional({ type: [Number], description: 'three numbers: all in [0,1] (normalized) or integers 0..255' })
  @IsOptional()
  @Validate(RgbShape)
  bg_color?: number[];

  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, description: 'background image for bg_type image' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL)
  bg_image_url?: string;

  @ApiPropertyOptional({ type: BackgroundDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => BackgroundDto)
  background?: BackgroundDto;

  @ApiPropertyOptional({ type: CompositionDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CompositionDto)
  composition?: CompositionDto;

  @ApiPropertyOptional({ minimum: PREVIEW_SECONDS.min, maximum: PREVIEW_SECONDS.max, description: 'process (and bill) only the first N seconds' })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(PREVIEW_SECONDS.min)
  @Max(PREVIEW_SECONDS.max)
  preview_duration?: number;

  @ApiPropertyOptional({ maxLength: 500, description: 'comma-separated subjects; used by model pro' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  text_prompt?: string;

  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, description: 'receives job.started, job.completed, job.failed' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL)
  webhook_url?: string;
}

export class CreateJobDto extends JobOptionsDto {
  @ApiProperty({ maxLength: MAX_URL_LENGTH, description: 'an upload video_url of this server, or a public http(s) URL' })
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  @IsUrl(HTTP_URL)
  video_url!: string;

  @ApiPropertyOptional({ default: true, description: 'false creates a draft to start later' })
  @IsOptional()
  @IsBoolean()
  auto_start?: boolean;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, description: 'up to 20 string keys of 1-100 characters, values up to 500 characters; echoed on the job' })
  @IsOptional()
  @Validate(MetadataShape)
  @Transform(({ obj }: { obj: { metadata?: unknown } }) => ownEntriesOf(obj.metadata), { toClassOnly: true })
  metadata?: Record<string, string>;
}

export class StartJobDto extends JobOptionsDto {}

export class ListJobsQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Allow()
  limit?: string;

  @ApiPropertyOptional({ minimum: 0, default: 0 })
  @IsOptional()
  @Allow()
  offset?: string;

  @ApiPropertyOptional({ enum: JOB_STATUSES })
  @IsOptional()
  @Allow()
  status?: string;
}
