import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import {
  createDocument,
  createSchema,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
} from 'zod-openapi';
import { ERROR_CATALOG, type ErrorCode } from '../errors.ts';
import { boundedInt, isoTime, label, pathIdText } from '../schemas/fields.ts';
import { errorEnvelopeSchema, requestId } from '../schemas/responses.ts';
import { CONSOLE_REQUEST_HEADER, SESSION_COOKIE } from './console-credentials.ts';
import { ENDPOINT_DOCS, type EndpointDocs, errorsOf } from './endpoint-docs.ts';
import { API_SCHEMAS, type EndpointSchemas } from './endpoint-schemas.ts';
import {
  type EndpointDefinition,
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_PATTERN,
} from './endpoints.ts';
import { ERROR_CONDITIONS } from './error-conditions.ts';
import { KEY_EXPIRY_HEADER } from './key-expiry.ts';
import { API_DEFINITIONS, API_ENDPOINTS } from './management-endpoints.ts';

/**
 * The OpenAPI 3.1 document, generated from the endpoint registry and its zod schemas (never written
 * by hand): `npm run openapi` writes it to openapi.json, which the API serves at /v1/openapi.json.
 */
const REPO_ROOT = join(import.meta.dirname, '..', '..');
const OPENAPI_VERSION = '3.1.0';

/**
 * Both are public: merchants integrate against sandbox and go live on production (`x-internal`
 * declares each server's audience, as OWASP API9 asks).
 */
const SERVERS = [
  {
    url: 'https://sandbox.api.abuse-decision.example',
    description: 'Sandbox (keys start with pk_test_)',
    'x-internal': false,
  },
  {
    url: 'https://api.abuse-decision.example',
    description: 'Production (keys start with pk_live_)',
    'x-internal': false,
  },
];

/** A draft IETF RateLimit or RateLimit-Policy value: a policy name and two numbers. */
const rateLimitValue = () => z.string().max(128);

/** Response headers, described once and referenced by every response that carries them. */
const HEADERS = {
  'X-Request-Id': {
    description: 'Identifies the request; equals `error.requestId` on errors.',
    schema: requestId(),
  },
  'Idempotent-Replayed': {
    description: 'Present (`true`) when the answer is the stored answer of an earlier identical call.',
    schema: z.enum(['true']),
  },
  Location: {
    description: 'Where the status of the accepted work is read (202).',
    schema: label(),
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying (429, 503).',
    schema: boundedInt(0, Number.MAX_SAFE_INTEGER),
  },
  RateLimit: {
    description:
      'Draft IETF RateLimit header: the requests left and the seconds until the quota is full again (`"merchant";r=97;t=1`).',
    schema: rateLimitValue(),
  },
  'RateLimit-Policy': {
    description:
      'Draft IETF RateLimit-Policy header: the quota and its window in seconds: the merchant’s (`"merchant";q=100;w=1`), or per client address for the document (`"document";q=30;w=60`).',
    schema: rateLimitValue(),
  },
  [KEY_EXPIRY_HEADER]: {
    description:
      'Present in the last 14 days of a key that expires: when it stops working (ISO time). Make the next key before then.',
    schema: isoTime(),
  },
};
type HeaderName = keyof typeof HEADERS;

const headerRefs = (...names: HeaderName[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const REASONS: Record<number, string> = {
  400: 'Malformed JSON, a missing field or a wrong JSON type',
  401: 'Missing, malformed, unknown or revoked API key, or a key of the other environment',
  403: 'The key or the merchant may not call this endpoint',
  404: 'The referenced order or return does not exist',
  409: 'A conflicting earlier call',
  410: 'The route is past its sunset',
  413: 'The request body is too large, or the record it makes would pass the 400 KB a stored item takes',
  422: 'A field has an invalid value',
  429: 'Rate limited; retry after Retry-After',
  500: 'Internal failure; retry with backoff',
  502: 'Upstream issue; retry with backoff',
  503: 'Temporarily unavailable; retry after Retry-After',
};

/** One response per status of the given codes, its `error.code` narrowed to them. */
function errorResponses(errorCodes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes) {
    const { status } = ERROR_CATALOG[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, codes]) => {
      const retryable = status === 429 || status === 503;
      return [
        String(status),
        {
          description: `${REASONS[status] ?? 'Error'}: ${codes.map((c) => `\`${c}\` (${ERROR_CONDITIONS[c]})`).join('; ')}.`,
          headers: headerRefs(
            'X-Request-Id',
            ...(retryable ? (['Retry-After'] as const) : []),
            'RateLimit',
            'RateLimit-Policy',
            KEY_EXPIRY_HEADER,
          ),
          content: {
            'application/json': {
              schema: z.intersection(
                errorEnvelopeSchema,
                z.looseObject({
                  error: z.looseObject({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]) }),
                }),
              ),
            },
          },
        },
      ];
    }),
  );
}

function example(definition: DocumentedEndpoint) {
  if (!definition.exampleFile) return {};
  const value: unknown = JSON.parse(
    readFileSync(join(REPO_ROOT, 'examples', definition.exampleFile), 'utf8'),
  );
  return { examples: { [definition.exampleFile.replace(/\.json$/, '')]: { value } } };
}

function idempotencyNote(policy: EndpointDefinition['idempotency']): string {
  if (!policy) return '';
  return `\n\nIdempotency: ${
    policy.kind === 'natural-key'
      ? `keyed on \`${policy.field}\`; the same body replays the first answer.`
      : `send an \`${IDEMPOTENCY_KEY_HEADER}\` (one per logical call, reused across its retries) to have a retry answered from the first call for 24 h.`
  }`;
}

function requestBody(name: string, definition: DocumentedEndpoint) {
  if (definition.request) {
    return {
      required: true,
      content: {
        'application/json': {
          schema: definition.request.meta({ id: `${pascalCase(name)}Request` }),
          ...example(definition),
        },
      },
    };
  }
  if (definition.csvBody) {
    return {
      required: true,
      description: `A CSV file with a header row, at most ${definition.csvBody.maxBytes} bytes.`,
      // Characters are at least one byte each: a file within the byte limit is within this length.
      content: { 'text/csv': { schema: z.string().max(definition.csvBody.maxBytes) } },
    };
  }
  return undefined;
}

function operation(name: string, definition: DocumentedEndpoint): ZodOpenApiOperationObject {
  const pathParameters = [...definition.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const usesKeyHeader = definition.idempotency?.kind === 'idempotency-key-header';
  const body = requestBody(name, definition);
  return {
    operationId: name,
    summary: definition.summary,
    description: `${definition.description}${idempotencyNote(definition.idempotency)}`,
    ...(definition.scope === 'console'
      ? {
          tags: ['Management'],
          security: [{ ApiKey: [] }, { ConsoleSession: [] }],
        }
      : { tags: ['Events'] }),
    ...(definition.deprecation ? { deprecated: true } : {}),
    requestParams: {
      ...(pathParameters.length > 0
        ? { path: z.object(Object.fromEntries(pathParameters.map((p) => [p, pathIdText()]))) }
        : {}),
      ...(definition.query ? { query: definition.query as z.ZodObject } : {}),
      ...(usesKeyHeader
        ? {
            header: z.object({
              [IDEMPOTENCY_KEY_HEADER]: z
                .string()
                .max(IDEMPOTENCY_KEY_MAX_LENGTH)
                .regex(IDEMPOTENCY_KEY_PATTERN)
                .optional()
                .meta({
                  description: `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters, unique per logical call`,
                }),
            }),
          }
        : {}),
    },
    ...(body ? { requestBody: body } : {}),
    responses: {
      [String(definition.successStatus ?? 200)]:
        definition.successStatus === 202
          ? {
              description: 'Accepted: a job finishes the work; its status is at Location',
              headers: headerRefs(
                'X-Request-Id',
                'Location',
                'RateLimit',
                'RateLimit-Policy',
                KEY_EXPIRY_HEADER,
              ),
              content: { 'application/json': { schema: definition.response } },
            }
          : {
              description: 'The answer',
              headers: headerRefs(
                'X-Request-Id',
                'Idempotent-Replayed',
                'RateLimit',
                'RateLimit-Policy',
                KEY_EXPIRY_HEADER,
              ),
              content: { 'application/json': { schema: definition.response } },
            },
      ...errorResponses(errorsOf(definition)),
    },
  };
}

/** An endpoint's definition with its schemas and its prose, as the document describes it. */
type DocumentedEndpoint = EndpointDefinition & EndpointSchemas & EndpointDocs;

const pascalCase = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function buildOpenApiDocument() {
  const paths: ZodOpenApiPathsObject = {};
  for (const name of API_ENDPOINTS) {
    const definition: DocumentedEndpoint = {
      ...API_DEFINITIONS[name],
      ...API_SCHEMAS[name]!,
      ...ENDPOINT_DOCS[name],
    };
    paths[definition.path] = {
      ...paths[definition.path],
      [definition.method.toLowerCase()]: operation(name, definition),
    };
  }
  paths['/v1/openapi.json'] = {
    get: {
      operationId: 'openapi',
      summary: 'This document',
      description:
        'Public: no key. Limited per client address (`RateLimit-Policy: "document";q=30;w=60`), past which it is 429 with Retry-After.',
      tags: ['Reference'],
      security: [],
      responses: {
        '200': {
          description: 'The OpenAPI 3.1 document of this API',
          headers: headerRefs('X-Request-Id', 'RateLimit', 'RateLimit-Policy'),
          content: { 'application/json': { schema: z.looseObject({ openapi: z.literal(OPENAPI_VERSION) }) } },
        },
        ...errorResponses(['rate_limited']),
      },
    },
  };
  return createDocument({
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Abuse-decision API',
      version: '1.0.0',
      description:
        'Scores commerce and account events (orders, returns, signups, logins, account updates) for abuse and records dispositions and disputes. Clients retry 429, 500, 502 and 503 with exponential backoff (1 s, 2 s, 4 s, 8 s), honouring Retry-After, and give up after the fifth attempt.',
    },
    servers: SERVERS,
    tags: [
      {
        name: 'Events',
        description: 'Scored events and the reports that feed their history (`events` keys)',
      },
      { name: 'Management', description: 'The console’s API (`console` keys or the console session)' },
      { name: 'Reference', description: 'This document' },
    ],
    security: [{ ApiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'The API key itself, with no scheme word: `pk_test_…` in sandbox, `pk_live_…` in production. Event endpoints take `events` keys, management endpoints `console` keys.',
        },
        ConsoleSession: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description: `The console session made by POST /v1/console/session; calls that change something also send the \`${CONSOLE_REQUEST_HEADER}\` header.`,
        },
      },
      headers: Object.fromEntries(
        Object.entries(HEADERS).map(([name, { description, schema }]) => [
          name,
          { description, schema: createSchema(schema).schema },
        ]),
      ),
    },
  });
}
