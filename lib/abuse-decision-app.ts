import { type App, Validations } from 'aws-cdk-lib';
import cdkNag from 'cdk-nag';
import type { RouteDefinition } from '../shared/http/route.ts';
import { ApiStack } from './api-stack.ts';
import { STAGES, type StageConfig, type StageName, stackEnvironment, stackName } from './config.ts';
import { DataStack } from './data-stack.ts';
import { ImportStack } from './import-job.ts';
import { LakeStack } from './lake-stack.ts';
import { PrivacyStack } from './privacy-stack.ts';
import { UploadWorkerStack } from './upload-worker.ts';
import { WebhookStack } from './webhook-worker.ts';

// cdk-nag is CommonJS; Node's ESM loader cannot see all of its named exports.
const { AwsSolutionsChecks } = cdkNag;

export interface EnvironmentStacks {
  data: DataStack;
  api: ApiStack;
  webhooks: WebhookStack;
  uploads: UploadWorkerStack;
  imports: ImportStack;
  lake: LakeStack;
  privacy: PrivacyStack;
}

export interface AbuseDecisionAppOptions {
  stages?: readonly StageConfig[];
  /** Defaults to shared/http/routes.ts. */
  routes?: readonly RouteDefinition[];
}

/**
 * One stateful stack (the table) and seven more (API, webhook delivery, upload recording, history
 * import, the lake and its learning job, privacy requests) per environment, checked by cdk-nag (AwsSolutions) at synthesis: an
 * unacknowledged finding fails `cdk synth`.
 */
export function buildAbuseDecisionApp(
  app: App,
  options: AbuseDecisionAppOptions = {},
): Record<StageName, EnvironmentStacks | undefined> {
  const built: Record<StageName, EnvironmentStacks | undefined> = {
    sandbox: undefined,
    production: undefined,
  };
  for (const config of options.stages ?? Object.values(STAGES)) {
    const env = stackEnvironment(config);
    const common = {
      env,
      terminationProtection: config.protectData,
      tags: { service: 'abuse-decision', environment: config.stage },
    };
    const data = new DataStack(app, stackName(config.stage, 'Data'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: the table (stateful)`,
      config,
    });
    const api = new ApiStack(app, stackName(config.stage, 'Api'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: API Gateway, functions, alarms (stateless)`,
      config,
      table: data.table,
      networkSecret: data.networkSecret,
      webhookSecretsKey: data.webhookSecretsKey,
      ...(options.routes ? { routes: options.routes } : {}),
    });
    const webhooks = new WebhookStack(app, stackName(config.stage, 'Webhooks'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: webhook delivery worker and retry queues (stateless)`,
      config,
      table: data.table,
      webhookSecretsKey: data.webhookSecretsKey,
      alarmTopic: api.monitoring.topic,
    });
    const imports = new ImportStack(app, stackName(config.stage, 'Import'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: history import bucket and state machine`,
      config,
      table: data.table,
      alarmTopic: api.monitoring.topic,
    });
    const lake = new LakeStack(app, stackName(config.stage, 'Lake'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: the lake (S3, Glue, Athena) fed from the table's changes`,
      config,
      changes: data.changes,
      table: data.table,
      // Bulk exports write to the API stack's exports bucket, by its named export: the lake stack's
      // grants on it then read as that name (cdk-nag's findings quote it).
      exportsBucketArnExport: api.exportsForWorker.arnExportName,
      alarmTopic: api.monitoring.topic,
    });
    const uploads = new UploadWorkerStack(app, stackName(config.stage, 'Uploads'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: dispositions upload worker (stateless)`,
      config,
      table: data.table,
      jobStarts: lake.jobStarts,
      alarmTopic: api.monitoring.topic,
    });
    const privacy = new PrivacyStack(app, stackName(config.stage, 'Privacy'), {
      ...common,
      description: `Abuse-decision API, ${config.stage}: the privacy worker (erase, export) on the table's stream`,
      config,
      table: data.table,
      exportsBucket: api.exportsForWorker,
      importsBucket: imports.forPrivacyWorker,
      lake: lake.forPrivacyWorker,
      alarmTopic: api.monitoring.topic,
    });
    built[config.stage] = { data, api, webhooks, uploads, imports, lake, privacy };
  }
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return built;
}
