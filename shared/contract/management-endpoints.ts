import type { MANAGEMENT_ENDPOINT_SCHEMAS } from './endpoint-schemas.ts';
import {
  ENDPOINT_DEFINITIONS,
  type EndpointDefinition,
  type EndpointName,
  type Holds,
  type SameKeys,
} from './endpoints.ts';

/**
 * The management API's half of the endpoint registry (endpoints.ts holds the event endpoints), and
 * the whole API as one table. Apart so that the event functions, which read only their own
 * definitions, do not carry the console's: the console function, the route table
 * (shared/http/routes.ts), the CDK stack and the OpenAPI document import this module.
 */

/** 5 MB: a month of one warehouse's inspections; API Gateway takes up to 10 MB. */
export const MAX_CSV_UPLOAD_BYTES = 5 * 1024 * 1024;

/** The management API (contract 9.3), called by the dashboard and by scripts with a console key. */
const consoleEndpoint = <const T extends Omit<EndpointDefinition, 'scope' | 'lambda'>>(definition: T) =>
  ({ ...definition, scope: 'console', lambda: 'console' }) as const;

export const MANAGEMENT_ENDPOINT_DEFINITIONS = {
  consoleSignIn: consoleEndpoint({
    method: 'POST',
    path: '/v1/console/session',
    errors: [],
  }),
  consoleSignOut: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/console/session',
    errors: [],
  }),
  reviewList: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews',
    errors: [],
  }),
  reviewShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews/{review-id}',
    errors: ['not_found'],
  }),
  reviewResolve: consoleEndpoint({
    method: 'POST',
    path: '/v1/reviews/{review-id}/resolve',
    errors: ['not_found', 'review_already_resolved'],
  }),
  decisionShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/decisions/{type}/{id}',
    errors: ['not_found'],
  }),
  workflowShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}',
    errors: ['not_found'],
  }),
  workflowSave: consoleEndpoint({
    method: 'PUT',
    path: '/v1/workflows/{type}',
    errors: ['not_found', 'invalid_workflow'],
  }),
  workflowValidate: consoleEndpoint({
    method: 'POST',
    path: '/v1/workflows/{type}/validate',
    errors: ['not_found'],
  }),
  workflowBacktest: consoleEndpoint({
    method: 'POST',
    path: '/v1/workflows/{type}/backtest',
    errors: ['not_found', 'invalid_workflow'],
  }),
  workflowVersions: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}/versions',
    errors: ['not_found'],
  }),
  dispositionsUpload: consoleEndpoint({
    method: 'POST',
    path: '/v1/return/dispositions/upload',
    csvBody: { maxBytes: MAX_CSV_UPLOAD_BYTES },
    requestBudgetMs: 27_000,
    successStatus: 202,
    errors: ['invalid_csv_rows'],
  }),
  dispositionsUploadShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/return/dispositions/uploads/{upload-id}',
    errors: ['not_found'],
  }),
  overview: consoleEndpoint({
    method: 'GET',
    path: '/v1/overview',
    errors: [],
  }),
  auditList: consoleEndpoint({
    method: 'GET',
    path: '/v1/audit',
    errors: [],
  }),
  webhookList: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks',
    errors: [],
  }),
  webhookCreate: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks',
    errors: ['not_found'],
  }),
  webhookShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}',
    errors: ['not_found'],
  }),
  webhookUpdate: consoleEndpoint({
    method: 'PATCH',
    path: '/v1/webhooks/{webhook-id}',
    errors: ['not_found'],
  }),
  webhookDelete: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/webhooks/{webhook-id}',
    errors: ['not_found'],
  }),
  webhookRotateSecret: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/rotate-secret',
    errors: ['not_found'],
  }),
  webhookTest: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/test',
    errors: ['not_found'],
  }),
  webhookDeliveries: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}/deliveries',
    errors: ['not_found'],
  }),
  webhookRedeliver: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/deliveries/{delivery-id}/redeliver',
    errors: ['not_found'],
  }),
};

/** Every endpoint of the API: the event endpoints and the management API. */
export const API_DEFINITIONS: Readonly<Record<ApiEndpointName, EndpointDefinition>> = {
  ...ENDPOINT_DEFINITIONS,
  ...MANAGEMENT_ENDPOINT_DEFINITIONS,
};
export type ManagementEndpointName = keyof typeof MANAGEMENT_ENDPOINT_DEFINITIONS;
export type ApiEndpointName = EndpointName | ManagementEndpointName;
export const API_ENDPOINTS = Object.keys(API_DEFINITIONS) as ApiEndpointName[];

export type ManagementSchemasCoverTheRegistry = Holds<
  SameKeys<typeof MANAGEMENT_ENDPOINT_SCHEMAS, typeof MANAGEMENT_ENDPOINT_DEFINITIONS>
>;
