import { listAuditLog } from '../shared/console/audit-log.ts';
import { createBacktest, showBacktest } from '../shared/console/backtests.ts';
import { saveSettings, showSettings, showTradeoffs } from '../shared/console/decision-settings.ts';
import { showDecision } from '../shared/console/decisions.ts';
import { showUpload, uploadDispositions } from '../shared/console/dispositions-upload.ts';
import { createLakeExport, showLakeExport } from '../shared/console/lake-exports.ts';
import {
  addEntry,
  listEntries,
  removeEntry,
  saveListRules,
  showEntry,
  showListRules,
} from '../shared/console/lists.ts';
import { saveNetwork, showNetwork } from '../shared/console/network.ts';
import { overview } from '../shared/console/overview.ts';
import { createPrivacyRequest, listPrivacy, showPrivacyRequest } from '../shared/console/privacy.ts';
import { listReviews, resolve, showReview } from '../shared/console/reviews.ts';
import { signIn, signOut } from '../shared/console/session.ts';
import {
  addWebhook,
  changeWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliverWebhook,
  rotateSecret,
  showWebhook,
  testWebhook,
} from '../shared/console/webhooks.ts';
import { listVersions, saveCandidate, showWorkflow, validateCandidate } from '../shared/console/workflows.ts';
import { managementHandler, routedFunction } from '../shared/http/management-handler.ts';

/** The management API's one Lambda function: each route's use case behind its own definition. */
export const handler = routedFunction({
  consoleSignIn: managementHandler('consoleSignIn', signIn),
  consoleSignOut: managementHandler('consoleSignOut', signOut),
  reviewList: managementHandler('reviewList', listReviews),
  reviewShow: managementHandler('reviewShow', showReview),
  reviewResolve: managementHandler('reviewResolve', resolve),
  decisionShow: managementHandler('decisionShow', showDecision),
  workflowShow: managementHandler('workflowShow', showWorkflow),
  workflowSave: managementHandler('workflowSave', saveCandidate),
  workflowValidate: managementHandler('workflowValidate', validateCandidate),
  workflowVersions: managementHandler('workflowVersions', listVersions),
  dispositionsUpload: managementHandler('dispositionsUpload', uploadDispositions),
  dispositionsUploadShow: managementHandler('dispositionsUploadShow', showUpload),
  overview: managementHandler('overview', overview),
  auditList: managementHandler('auditList', listAuditLog),
  settingsShow: managementHandler('settingsShow', showSettings),
  settingsSave: managementHandler('settingsSave', saveSettings),
  tradeoffsShow: managementHandler('tradeoffsShow', showTradeoffs),
  webhookList: managementHandler('webhookList', listWebhooks),
  webhookCreate: managementHandler('webhookCreate', addWebhook),
  webhookShow: managementHandler('webhookShow', showWebhook),
  webhookUpdate: managementHandler('webhookUpdate', changeWebhook),
  webhookDelete: managementHandler('webhookDelete', deleteWebhook),
  webhookRotateSecret: managementHandler('webhookRotateSecret', rotateSecret),
  webhookTest: managementHandler('webhookTest', testWebhook),
  webhookDeliveries: managementHandler('webhookDeliveries', listWebhookDeliveries),
  webhookRedeliver: managementHandler('webhookRedeliver', redeliverWebhook),
  listEntryList: managementHandler('listEntryList', listEntries),
  listEntryAdd: managementHandler('listEntryAdd', addEntry),
  listEntryShow: managementHandler('listEntryShow', showEntry),
  listEntryRemove: managementHandler('listEntryRemove', removeEntry),
  listRulesShow: managementHandler('listRulesShow', showListRules),
  listRulesSave: managementHandler('listRulesSave', saveListRules),
  networkShow: managementHandler('networkShow', showNetwork),
  networkSave: managementHandler('networkSave', saveNetwork),
  privacyRequestCreate: managementHandler('privacyRequestCreate', createPrivacyRequest),
  privacyRequestList: managementHandler('privacyRequestList', listPrivacy),
  privacyRequestShow: managementHandler('privacyRequestShow', showPrivacyRequest),
  lakeExportCreate: managementHandler('lakeExportCreate', createLakeExport),
  lakeExportShow: managementHandler('lakeExportShow', showLakeExport),
  backtestCreate: managementHandler('backtestCreate', createBacktest),
  backtestShow: managementHandler('backtestShow', showBacktest),
});
