import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { DomainError, ErrorCode, unstorableString, type UnstorableJson } from '@app/contracts';

/** JSON bodies nested deeper are refused before anything walks them recursively (validation, NATS, Postgres). */
export const MAX_JSON_DEPTH = 128;

/** Longest path parameter the router matches; a longer one is answered 414 (main.ts). */
export const MAX_PATH_PARAM_LENGTH = 256;

/** C0 control characters and DEL: no id contains one. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * What no route can take, checked before validation (a global pipe ahead of the ValidationPipe), answered 400:
 * a path or query parameter with control characters (NUL would reach Postgres, which cannot store it), a body
 * nested deeper than MAX_JSON_DEPTH (recursive code overflows its stack on 100 000 levels), or a body with a string
 * or a key Postgres's jsonb cannot store (NUL, an unpaired UTF-16 surrogate: the insert would fail, not refuse).
 */
@Injectable()
export class RequestShapePipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    switch (metadata.type) {
      case 'param':
      case 'query':
        checkParameters(value, metadata.data);
        return value;
      case 'body':
        checkBody(value);
        return value;
      case 'custom':
        return value;
    }
  }
}

/** 400 when a path or query parameter (or an object of them) holds a control character. */
export function checkParameters(value: unknown, name: string | undefined): void {
  const values: [string, unknown][] =
    typeof value === 'object' && value !== null
      ? Object.entries(value as Record<string, unknown>)
      : [[name ?? 'parameter', value]];
  for (const [key, item] of values) {
    for (const text of [key, ...(Array.isArray(item) ? (item as unknown[]) : [item])]) {
      if (typeof text === 'string' && hasControl(text)) {
        throw new DomainError(ErrorCode.BadRequest, `${String(key)} must not contain control characters`);
      }
    }
  }
}

const UNSTORABLE: Record<UnstorableJson, string> = {
  'U+0000': 'the body contains a NUL character',
  'unpaired surrogate': 'the body contains an unpaired UTF-16 surrogate (\\ud800-\\udfff)',
};

/** 400 for a string Postgres's jsonb cannot store (unstorableString). */
function checkString(text: string): void {
  const found = unstorableString(text);
  if (found) throw new DomainError(ErrorCode.BadRequest, UNSTORABLE[found]);
}

/** Walks the body without recursion. */
function checkBody(body: unknown): void {
  const stack: [unknown, number][] = [[body, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value === 'string') {
      checkString(value);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new DomainError(ErrorCode.BadRequest, `the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
    } else {
      for (const [key, item] of Object.entries(value)) {
        checkString(key);
        stack.push([item, depth + 1]);
      }
    }
  }
}
