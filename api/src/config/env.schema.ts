import { isIP } from 'node:net';
import { applyDecorators } from '@nestjs/common';
import {
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  type ValidatorConstraintInterface,
} from 'class-validator';
import { parseDuration } from './duration';

@ValidatorConstraint({ name: 'duration' })
class DurationConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && parseDuration(value) !== null;
  }
  defaultMessage(): string {
    return '$property must be a duration such as 90s, 15m, 24h or 7d, at most 3650d (got "$value")';
  }
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function isAddressOrCidr(item: string): boolean {
  const [address, prefix, ...rest] = item.split('/');
  if (rest.length > 0 || !address) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME = new RegExp(`^${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);

/** A DNS host name such as `nginx` or `lb-1.internal` (not an address written wrongly). */
export function isHostName(item: string): boolean {
  return item.length <= 253 && HOST_NAME.test(item) && !/^[\d.]+$/.test(item);
}

@ValidatorConstraint({ name: 'proxyList' })
class ProxyListConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return (
      typeof value === 'string' &&
      splitList(value).every((item) => isAddressOrCidr(item) || isHostName(item))
    );
  }
  defaultMessage(): string {
    return '$property must be a comma-separated list of IP addresses, CIDRs or host names (got "$value")';
  }
}

export function isOrigin(item: string): boolean {
  try {
    const url = new URL(item);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === item;
  } catch {
    return false;
  }
}

@ValidatorConstraint({ name: 'originList' })
class OriginListConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && splitList(value).every(isOrigin);
  }
  defaultMessage(): string {
    return '$property must be a comma-separated list of origins such as https://chat.example.com (got "$value")';
  }
}

/** A whole number in a range, with one message for every way of missing it. */
function IsWholeNumber(min: number, max: number): PropertyDecorator {
  const message = `$property must be a whole number from ${min} to ${max} (got "$value")`;
  return applyDecorators(IsInt({ message }), Min(min, { message }), Max(max, { message }));
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'log', 'debug', 'verbose'] as const;

/** The environment as the process reads it. Empty values count as unset. */
export class EnvironmentVariables {
  @IsOptional()
  @IsWholeNumber(0, 65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9.:_-]+$/, { message: 'HOST must be an address or host name (got "$value")' })
  HOST?: string;

  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, {
    message: 'REDIS_URL must be a redis:// or rediss:// URL',
  })
  REDIS_URL?: string;

  /** Checked by `loadConfig`: `host:port` seeds of a Redis Cluster, comma-separated. */
  @IsOptional()
  @IsString()
  REDIS_CLUSTER_NODES?: string;

  @IsOptional()
  @IsWholeNumber(0, 16)
  REDIS_WAIT_REPLICAS?: number;

  @IsOptional()
  @IsWholeNumber(1, 600_000)
  REDIS_WAIT_TIMEOUT_MS?: number;

  @IsOptional()
  @IsString()
  JWT_SECRET?: string;

  @IsOptional()
  @Validate(DurationConstraint)
  TOKEN_TTL?: string;

  @IsOptional()
  @IsWholeNumber(1, 1_000_000)
  HISTORY_MAX?: number;

  @IsOptional()
  @Validate(DurationConstraint)
  ROOM_TTL?: string;

  @IsOptional()
  @Validate(OriginListConstraint)
  ALLOWED_ORIGINS?: string;

  @IsOptional()
  @Validate(ProxyListConstraint)
  TRUST_PROXY?: string;

  @IsOptional()
  @IsString()
  WEB_DIST?: string;

  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "$value")` })
  LOG_LEVEL?: (typeof LOG_LEVELS)[number];

  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, {
    message: 'REPLICA_ID must be 1–64 letters, digits, dots, dashes or underscores',
  })
  REPLICA_ID?: string;

  @IsOptional()
  @IsWholeNumber(1, 1_000_000)
  CREDENTIALS_PER_MINUTE?: number;

  @IsOptional()
  @IsWholeNumber(1, 1_000_000)
  CONNECTIONS_PER_IP?: number;

  @IsOptional()
  @IsWholeNumber(1, 10_000)
  MESSAGE_BURST?: number;

  @IsOptional()
  @IsNumber({}, { message: 'MESSAGES_PER_SECOND must be a number above 0' })
  @Min(0.001, { message: 'MESSAGES_PER_SECOND must be a number above 0' })
  MESSAGES_PER_SECOND?: number;

  @IsOptional()
  @IsNumber({}, { message: 'TYPING_PER_SECOND must be a number above 0' })
  @Min(0.001, { message: 'TYPING_PER_SECOND must be a number above 0' })
  TYPING_PER_SECOND?: number;

  @IsOptional()
  @IsWholeNumber(1, 10_000)
  HISTORY_REQUESTS_PER_10S?: number;

  /** Checked by `loadConfig`: a duration from 1 minute to 1 hour. */
  @IsOptional()
  @Validate(DurationConstraint)
  DISAPPEAR_SHORTEST?: string;
}

export { splitList };
