import type { z } from 'zod';
import { ApiError, type ErrorCode } from '../errors.ts';

/**
 * Turns zod issues into the one ApiError the envelope reports, following docs/decisions.md:
 * shape problems (missing field, wrong JSON type) are 400 `invalid_request`; a present field with a
 * bad value is 422 with the catalog's specific code when there is one. Shape problems win over value
 * problems; within each class the first issue wins. Messages never echo input values.
 */
export function validate<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body, { reportInput: true });
  if (result.success) return result.data;
  throw toApiError(result.error.issues);
}

type Issue = z.core.$ZodIssue & { input?: unknown };

export function toApiError(issues: readonly Issue[]): ApiError {
  const mapped = describeIssues(issues);
  const chosen = mapped.find((m) => m.code === 'invalid_request') ?? mapped[0];
  if (!chosen) return new ApiError('invalid_request', 'The request body is invalid.');
  return new ApiError(chosen.code, chosen.message, { field: chosen.field });
}

/** Every issue in the envelope's terms (the CSV upload reports each of a row's cells). */
export const describeIssues = (issues: readonly Issue[]): MappedIssue[] => issues.map(describeIssue);

export interface MappedIssue {
  code: ErrorCode;
  field: string;
  message: string;
}

function describeIssue(issue: Issue): MappedIssue {
  const field = formatPath(issue.path);
  const missing = !('input' in issue) || issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys': {
      const unknown = formatPath([...issue.path, issue.keys[0] ?? '']);
      return { code: 'unknown_field', field: unknown, message: `${unknown} is not a field of this request.` };
    }
    case 'invalid_type':
      return missing
        ? { code: 'invalid_request', field, message: `${field} is required.` }
        : { code: 'invalid_request', field, message: `${field} must be of type ${issue.expected}.` };
    case 'invalid_union': {
      if ('discriminator' in issue && typeof issue.discriminator === 'string') {
        // zod reports the tag's path itself (or its object's path, depending on the case).
        const tagPath =
          issue.path.at(-1) === issue.discriminator ? issue.path : [...issue.path, issue.discriminator];
        const tagField = formatPath(tagPath);
        const input = issue.input;
        const tag =
          input !== null && typeof input === 'object'
            ? (input as Record<string, unknown>)[issue.discriminator]
            : input;
        return tag === undefined
          ? { code: 'invalid_request', field: tagField, message: `${tagField} is required.` }
          : {
              code: 'unprocessable_entity',
              field: tagField,
              message: `${tagField} has an unsupported value.`,
            };
      }
      return { code: 'unprocessable_entity', field, message: `${field} is invalid.` };
    }
    case 'custom': {
      if (missing) return { code: 'invalid_request', field, message: `${field} is required.` };
      const apiCode =
        (issue.params as { apiCode?: ErrorCode } | undefined)?.apiCode ?? 'unprocessable_entity';
      return { code: apiCode, field, message: `${field} ${issue.message}.` };
    }
    default:
      if (missing) return { code: 'invalid_request', field, message: `${field} is required.` };
      return { code: 'unprocessable_entity', field, message: `${field}: ${issue.message}.` };
  }
}

/** ['lineItems', 2, 'unitPrice'] -> "lineItems[2].unitPrice" */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(body)';
}
