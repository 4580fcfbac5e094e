import type * as z from 'zod';
import { accountRequestSchema } from '../schemas/account.ts';
import * as consoleSchemas from '../schemas/console.ts';
import * as settingsSchemas from '../schemas/decision-settings.ts';
import { dispositionRequestSchema } from '../schemas/disposition.ts';
import { disputeRequestSchema } from '../schemas/dispute.ts';
import * as lakeExportSchemas from '../schemas/lake-export.ts';
import * as listSchemas from '../schemas/lists.ts';
import { loginRequestSchema } from '../schemas/login.ts';
import * as networkSchemas from '../schemas/network.ts';
import { orderRequestSchema } from '../schemas/order.ts';
import * as privacySchemas from '../schemas/privacy.ts';
import {
  accountResponseSchema,
  dispositionResponseSchema,
  disputeResponseSchema,
  loginResponseSchema,
  orderResponseSchema,
  returnResponseSchema,
  signupResponseSchema,
} from '../schemas/responses.ts';
import { returnRequestSchema } from '../schemas/return.ts';
import { signupRequestSchema } from '../schemas/signup.ts';
import * as webhookSchemas from '../schemas/webhooks.ts';

/**
 * The zod schemas of every endpoint in the registry (shared/contract/endpoints.ts), kept apart from
 * it so that a function loads only its own: building every endpoint's schemas (the console's and the
 * webhooks' among them) took a fifth of a function's cold start. The OpenAPI document, the console
 * function and the tests read them here; an event function imports its request schema directly
 * (`functions/<name>.ts`). endpoints.ts checks that both list the same endpoints.
 */
export interface EndpointSchemas {
  /** The JSON body's schema; absent when the endpoint takes none (GET, DELETE, the CSV upload). */
  request?: z.ZodType;
  /** The query string's schema (lists, the overview period). */
  query?: z.ZodType;
  response: z.ZodType;
}

const schemas = <const T extends EndpointSchemas>(definition: T): T => definition;

export const ENDPOINT_SCHEMAS = {
  order: schemas({ request: orderRequestSchema, response: orderResponseSchema }),
  return: schemas({ request: returnRequestSchema, response: returnResponseSchema }),
  disposition: schemas({ request: dispositionRequestSchema, response: dispositionResponseSchema }),
  dispute: schemas({ request: disputeRequestSchema, response: disputeResponseSchema }),
  signup: schemas({ request: signupRequestSchema, response: signupResponseSchema }),
  login: schemas({ request: loginRequestSchema, response: loginResponseSchema }),
  account: schemas({ request: accountRequestSchema, response: accountResponseSchema }),
};

export const MANAGEMENT_ENDPOINT_SCHEMAS = {
  consoleSignIn: schemas({ response: consoleSchemas.consoleSessionSchema }),
  consoleSignOut: schemas({ response: consoleSchemas.signedOutSchema }),
  reviewList: schemas({
    query: consoleSchemas.reviewListQuerySchema,
    response: consoleSchemas.reviewPageSchema,
  }),
  reviewShow: schemas({ response: consoleSchemas.reviewDetailSchema }),
  reviewResolve: schemas({
    request: consoleSchemas.resolveReviewRequestSchema,
    response: consoleSchemas.reviewSchema,
  }),
  decisionShow: schemas({ response: consoleSchemas.decisionExplanationSchema }),
  workflowShow: schemas({ response: consoleSchemas.workflowStateSchema }),
  workflowSave: schemas({
    request: consoleSchemas.workflowCandidateSchema,
    response: consoleSchemas.workflowStateSchema,
  }),
  workflowValidate: schemas({
    request: consoleSchemas.workflowCandidateSchema,
    response: consoleSchemas.workflowValidationSchema,
  }),
  workflowVersions: schemas({
    query: consoleSchemas.auditQuerySchema,
    response: consoleSchemas.workflowVersionPageSchema,
  }),
  dispositionsUpload: schemas({ response: consoleSchemas.uploadAcceptedSchema }),
  dispositionsUploadShow: schemas({ response: consoleSchemas.uploadStatusSchema }),
  overview: schemas({ query: consoleSchemas.overviewQuerySchema, response: consoleSchemas.overviewSchema }),
  auditList: schemas({ query: consoleSchemas.auditQuerySchema, response: consoleSchemas.auditPageSchema }),
  settingsShow: schemas({ response: settingsSchemas.decisionSettingsStateSchema }),
  settingsSave: schemas({
    request: settingsSchemas.decisionSettingsRequestSchema,
    response: settingsSchemas.decisionSettingsStateSchema,
  }),
  tradeoffsShow: schemas({ response: settingsSchemas.tradeoffReportSchema }),
  webhookList: schemas({ response: webhookSchemas.webhookListSchema }),
  webhookCreate: schemas({
    request: webhookSchemas.webhookSettingsSchema,
    response: webhookSchemas.webhookCreatedSchema,
  }),
  webhookShow: schemas({ response: webhookSchemas.webhookEndpointSchema }),
  webhookUpdate: schemas({
    request: webhookSchemas.webhookUpdateSchema,
    response: webhookSchemas.webhookEndpointSchema,
  }),
  webhookDelete: schemas({ response: webhookSchemas.webhookDeletedSchema }),
  webhookRotateSecret: schemas({ response: webhookSchemas.webhookSecretSchema }),
  webhookTest: schemas({ response: webhookSchemas.webhookQueuedSchema }),
  webhookDeliveries: schemas({
    query: webhookSchemas.webhookDeliveryQuerySchema,
    response: webhookSchemas.webhookDeliveryListSchema,
  }),
  webhookRedeliver: schemas({ response: webhookSchemas.webhookQueuedSchema }),
  listEntryList: schemas({
    query: listSchemas.listEntryQuerySchema,
    response: listSchemas.listEntryPageSchema,
  }),
  listEntryAdd: schemas({
    request: listSchemas.listEntryRequestSchema,
    response: listSchemas.listEntrySchema,
  }),
  listEntryShow: schemas({ response: listSchemas.listEntrySchema }),
  listEntryRemove: schemas({ response: listSchemas.listEntryRemovedSchema }),
  listRulesShow: schemas({ response: listSchemas.listRulesSchema }),
  listRulesSave: schemas({
    request: listSchemas.listRulesRequestSchema,
    response: listSchemas.listRulesSchema,
  }),
  networkShow: schemas({ response: networkSchemas.networkMembershipSchema }),
  networkSave: schemas({
    request: networkSchemas.networkMembershipRequestSchema,
    response: networkSchemas.networkMembershipSchema,
  }),
  privacyRequestCreate: schemas({
    request: privacySchemas.privacyRequestSchema,
    response: privacySchemas.privacyRequestStatusSchema,
  }),
  privacyRequestList: schemas({
    query: consoleSchemas.auditQuerySchema,
    response: privacySchemas.privacyRequestPageSchema,
  }),
  privacyRequestShow: schemas({ response: privacySchemas.privacyRequestStatusSchema }),
  lakeExportCreate: schemas({
    request: lakeExportSchemas.lakeExportRequestSchema,
    response: lakeExportSchemas.lakeExportStatusSchema,
  }),
  lakeExportShow: schemas({ response: lakeExportSchemas.lakeExportStatusSchema }),
  backtestCreate: schemas({
    request: consoleSchemas.backtestRequestSchema,
    response: consoleSchemas.backtestStatusSchema,
  }),
  backtestShow: schemas({ response: consoleSchemas.backtestStatusSchema }),
};

/** Every endpoint's schemas: the event endpoints and the management API. */
export const API_SCHEMAS: Readonly<Record<string, EndpointSchemas>> = {
  ...ENDPOINT_SCHEMAS,
  ...MANAGEMENT_ENDPOINT_SCHEMAS,
};
