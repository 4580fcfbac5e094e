import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Contract tests: every response the HTTP suites receive (test/support/api.ts calls this) is checked
 * against openapi.json, the committed document, for its path, method and status. A documented
 * operation answering a status the document does not list, or a body its schema refuses, fails the
 * test that received it. Responses on undocumented paths or methods (404/405 probes) must still be
 * the documented error envelope. The count of checked responses is reported at the end of the run.
 */
type Json = Record<string, unknown>;

const REPO_ROOT = join(import.meta.dirname, '..', '..');
const DOCUMENT_ID = 'https://abuse-decision.example/openapi.json';

export const openApiDocument = JSON.parse(readFileSync(join(REPO_ROOT, 'openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, Json> }>>;
  components: Json;
};

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The whole document is one schema resource, so its `#/components/...` references resolve.
ajv.addSchema({ ...openApiDocument, $id: DOCUMENT_ID });

const compiled = new Map<string, ValidateFunction>();
function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const pointerSegment = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const templates = Object.keys(openApiDocument.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\./g, '\\.')}$`),
}));

export interface ContractCheck {
  /** Which schema the body was checked against. */
  against: string;
  problems: string[];
}

/**
 * Checks one response; an empty `problems` list means it matches the document. With `headers`, it
 * also checks what every answer carries (X-Request-Id) and the Retry-After the document gives 429
 * and 503 answers.
 */
export function checkResponse(
  method: string,
  url: string,
  status: number,
  body: unknown,
  headers?: Headers,
): ContractCheck {
  const check = checkBody(method, url, status, body);
  if (headers) {
    if (!headers.get('x-request-id')) check.problems.push('no X-Request-Id header');
    if ((status === 429 || status === 503) && !headers.get('retry-after')) {
      check.problems.push(`no Retry-After header on a ${status}`);
    }
  }
  return check;
}

function checkBody(method: string, url: string, status: number, body: unknown): ContractCheck {
  const path = new URL(url, 'http://localhost').pathname;
  const template = templates.find((t) => t.pattern.test(path))?.template;
  const operation = template ? openApiDocument.paths[template]?.[method.toLowerCase()] : undefined;
  if (!template || !operation) {
    // Not an operation of the API: it can only be an error, in the shared envelope.
    const problems = status >= 400 ? errorsOf(validatorAt('/components/schemas/ErrorEnvelope'), body) : [];
    if (status < 400) problems.push(`${method} ${path} answered ${status} but is not in the document`);
    return { against: 'ErrorEnvelope', problems };
  }
  const against = `${method.toUpperCase()} ${template} ${status}`;
  if (!operation.responses[String(status)]) {
    return {
      against,
      problems: [`status ${status} is not documented for ${method.toUpperCase()} ${template}`],
    };
  }
  const pointer = `/paths/${pointerSegment(template)}/${method.toLowerCase()}/responses/${status}/content/${pointerSegment('application/json')}/schema`;
  return { against, problems: errorsOf(validatorAt(pointer), body) };
}

function errorsOf(validate: ValidateFunction, body: unknown): string[] {
  if (validate(body)) return [];
  return (validate.errors ?? []).map(
    (e: ErrorObject) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  );
}

let validated = 0;

/** Throws when the response does not match the document; counts every response it checked. */
export function assertMatchesContract(
  method: string,
  url: string,
  status: number,
  body: unknown,
  headers?: Headers,
): void {
  const { against, problems } = checkResponse(method, url, status, body, headers);
  validated++;
  if (problems.length > 0) {
    throw new Error(
      `response does not match openapi.json (${against}):\n  ${problems.join('\n  ')}\nbody: ${JSON.stringify(body)?.slice(0, 500)}`,
    );
  }
}

/** Appends this test file's count to the run's tally (read by test/support/global-setup.ts). */
export function reportValidatedResponses(file: string | undefined): void {
  if (file && validated > 0) appendFileSync(file, `${validated}\n`);
}
