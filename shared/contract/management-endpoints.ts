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
const MAX_CSV_UPLOAD_BYTES = 5 * 1024 * 1024;

/** The management API (docs/api.md), called by the dashboard and by scripts with a console key. */
const consoleEndpoint = <const T extends Omit<EndpointDefinition, 'scope' | 'lambda'>>(definition: T) =>
  ({ ...definition, scope: 'console', lambda: 'console' }) as const;

export const MANAGEMENT_ENDPOINT_DEFINITIONS = {
  consoleSignIn: consoleEndpoint({
    method: 'POST',
    path: '/v1/console/session',
  }),
  consoleSignOut: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/console/session',
  }),
  reviewList: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews',
  }),
  reviewShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/reviews/{review-id}',
  }),
  reviewResolve: consoleEndpoint({
    method: 'POST',
    path: '/v1/reviews/{review-id}/resolve',
  }),
  decisionShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/decisions/{type}/{id}',
  }),
  workflowShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}',
  }),
  workflowSave: consoleEndpoint({
    method: 'PUT',
    path: '/v1/workflows/{type}',
  }),
  workflowValidate: consoleEndpoint({
    method: 'POST',
    path: '/v1/workflows/{type}/validate',
  }),
  workflowVersions: consoleEndpoint({
    method: 'GET',
    path: '/v1/workflows/{type}/versions',
  }),
  dispositionsUpload: consoleEndpoint({
    method: 'POST',
    path: '/v1/return/dispositions/upload',
    csvBody: { maxBytes: MAX_CSV_UPLOAD_BYTES },
    requestBudgetMs: 27_000,
    successStatus: 202,
  }),
  dispositionsUploadShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/return/dispositions/uploads/{upload-id}',
  }),
  overview: consoleEndpoint({
    method: 'GET',
    path: '/v1/overview',
  }),
  auditList: consoleEndpoint({
    method: 'GET',
    path: '/v1/audit',
  }),
  settingsShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/settings/{type}',
  }),
  settingsSave: consoleEndpoint({
    method: 'PUT',
    path: '/v1/settings/{type}',
  }),
  tradeoffsShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/tradeoffs/{type}',
  }),
  webhookList: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks',
  }),
  webhookCreate: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks',
  }),
  webhookShow: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}',
  }),
  webhookUpdate: consoleEndpoint({
    method: 'PATCH',
    path: '/v1/webhooks/{webhook-id}',
  }),
  webhookDelete: consoleEndpoint({
    method: 'DELETE',
    path: '/v1/webhooks/{webhook-id}',
  }),
  webhookRotateSecret: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/rotate-secret',
  }),
  webhookTest: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/test',
  }),
  webhookDeliveries: consoleEndpoint({
    method: 'GET',
    path: '/v1/webhooks/{webhook-id}/deliveries',
  }),
  webhookRedeliver: consoleEndpoint({
    method: 'POST',
    path: '/v1/webhooks/{webhook-id}/deliveries/{delivery-id}/redeliver',
  }),
  listEntryList: consoleEndpoint({ method: 'GET', path: '/v1/lists' }),
  listEntryAdd: consoleEndpoint({ method: 'POST', path: '/v1/lists' }),
  listEntryShow: consoleEndpoint({ method: 'GET', path: '/v1/lists/{entry-id}' }),
  listEntryRemove: consoleEndpoint({ method: 'DELETE', path: '/v1/lists/{entry-id}' }),
  listRulesShow: consoleEndpoint({ method: 'GET', path: '/v1/list-rules' }),
  listRulesSave: consoleEndpoint({ method: 'PUT', path: '/v1/list-rules' }),
  networkShow: consoleEndpoint({ method: 'GET', path: '/v1/network' }),
  networkSave: consoleEndpoint({ method: 'PUT', path: '/v1/network' }),
  privacyRequestCreate: consoleEndpoint({
    method: 'POST',
    path: '/v1/privacy/requests',
    successStatus: 202,
  }),
  privacyRequestList: consoleEndpoint({ method: 'GET', path: '/v1/privacy/requests' }),
  privacyRequestShow: consoleEndpoint({ method: 'GET', path: '/v1/privacy/requests/{request-id}' }),
  lakeExportCreate: consoleEndpoint({ method: 'POST', path: '/v1/exports', successStatus: 202 }),
  lakeExportShow: consoleEndpoint({ method: 'GET', path: '/v1/exports/{export-id}' }),
  backtestCreate: consoleEndpoint({ method: 'POST', path: '/v1/backtests', successStatus: 202 }),
  backtestShow: consoleEndpoint({ method: 'GET', path: '/v1/backtests/{backtest-id}' }),
};

/** Every endpoint of the API: the event endpoints and the management API. */
export const API_DEFINITIONS: Readonly<Record<ApiEndpointName, EndpointDefinition>> = {
  ...ENDPOINT_DEFINITIONS,
  ...MANAGEMENT_ENDPOINT_DEFINITIONS,
};
export type ManagementEndpointName = keyof typeof MANAGEMENT_ENDPOINT_DEFINITIONS;
export type ApiEndpointName = EndpointName | ManagementEndpointName;
export const API_ENDPOINTS = Object.keys(API_DEFINITIONS) as ApiEndpointName[];

/** @public Checked by tsc, imported by nothing. */
export type ManagementSchemasCoverTheRegistry = Holds<
  SameKeys<typeof MANAGEMENT_ENDPOINT_SCHEMAS, typeof MANAGEMENT_ENDPOINT_DEFINITIONS>
>;
