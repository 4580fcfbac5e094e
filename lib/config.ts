import { RemovalPolicy } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Environment } from '../shared/config.ts';
import { DEFAULT_RETENTION_DAYS, type RetainedKind } from '../shared/retention.ts';

/**
 * One typed record per deployment environment. bin/app.ts builds one stack set per entry; nothing
 * else in lib/ knows which environment it is building. Change a value here, review it, deploy.
 */
export type StageName = Environment;

/** Requests per second a merchant may sustain, and the burst it may spend at once. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export interface CustomDomain {
  /** The API's public host name, e.g. `api.sandbox.example.com`. */
  domainName: string;
  /** ACM certificate covering `domainName`, in the stack's own region (the endpoint is regional). */
  certificateArn: string;
  /** Route 53 zone in which to create the alias record; omit when DNS is managed elsewhere. */
  hostedZone?: { hostedZoneId: string; zoneName: string };
}

/** Capacity units DynamoDB auto scaling may move between. */
export interface CapacityRange {
  min: number;
  max: number;
}

/**
 * How the table pays for throughput. `on-demand` takes any burst at once, at $0.625 per million write
 * units. `provisioned` auto-scales between the ranges to keep use near the target: about a third of
 * the price for steady traffic, but a burst beyond what is provisioned is throttled (the service answers
 * 503) until scaling catches up, which takes minutes. docs/benchmarks.md (cost).
 */
export type TableCapacity =
  | { mode: 'on-demand' }
  | {
      mode: 'provisioned';
      targetUtilizationPercent: number;
      table: { read: CapacityRange; write: CapacityRange };
      /** Each global secondary index (GSI1 takes one write per decided event, about 1/13 of the table's). */
      indexes: { read: CapacityRange; write: CapacityRange };
    };

export type PowertoolsLogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface StageConfig {
  stage: StageName;
  /** Target account and region; unset means the CLI's (CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION). */
  account?: string;
  region?: string;
  /** Public host name and certificate; without one, merchants call the execute-api URL. */
  customDomain?: CustomDomain;
  /** Default per-merchant limit; a merchant's own `rateLimit` overrides it (DEFAULT_RATE_LIMIT_*). */
  defaultRateLimit: RateLimit;
  /** Stage-wide API Gateway throttle: a backstop well above any single merchant's limit. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /** Powertools log level of every function (POWERTOOLS_LOG_LEVEL). */
  logLevel: PowertoolsLogLevel;
  /** How long function and access logs are kept. */
  logRetention: RetentionDays;
  /** Where alarm notifications go; without one the SNS topic has no subscriber. */
  alarmEmail?: string;
  /** `customer-managed` creates a rotating KMS key for the table; `aws-managed` uses aws/dynamodb. */
  tableEncryption: 'aws-managed' | 'customer-managed';
  /** On-demand in both environments: bot waves arrive as bursts (see TableCapacity). */
  tableCapacity: TableCapacity;
  /**
   * Production data safety: table deletion protection, RETAIN on the table, its key and the log
   * groups, and CloudFormation termination protection on both stacks.
   */
  protectData: boolean;
  /**
   * Days each kind of record is kept before the table's TTL removes it (docs/privacy.md); the
   * functions read them from RETENTION_DAYS. Defaults in shared/retention.ts.
   */
  retentionDays: Readonly<Record<RetainedKind, number>>;
  /** The lake's query engine (Athena): the most one query may scan before Athena cancels it. */
  lake: { bytesScannedCutoffPerQuery: number };
  alarms: {
    /** Share of API requests answered 5xx, in percent, that raises the alarm. */
    serverErrorRatePercent: number;
    /** p99 duration of any one function, in milliseconds, that raises the alarm. */
    p99LatencyMs: number;
  };
}

const GB = 1024 ** 3;

export const STAGES: Readonly<Record<StageName, StageConfig>> = {
  sandbox: {
    stage: 'sandbox',
    defaultRateLimit: { perSecond: 10, burst: 20 },
    apiThrottle: { rateLimit: 100, burstLimit: 200 },
    logLevel: 'INFO',
    logRetention: RetentionDays.ONE_MONTH,
    tableEncryption: 'aws-managed',
    tableCapacity: { mode: 'on-demand' },
    protectData: false,
    retentionDays: DEFAULT_RETENTION_DAYS,
    lake: { bytesScannedCutoffPerQuery: 10 * GB },
    alarms: { serverErrorRatePercent: 5, p99LatencyMs: 2000 },
  },
  production: {
    stage: 'production',
    defaultRateLimit: { perSecond: 100, burst: 200 },
    apiThrottle: { rateLimit: 2000, burstLimit: 4000 },
    logLevel: 'INFO',
    logRetention: RetentionDays.ONE_YEAR,
    tableEncryption: 'customer-managed',
    tableCapacity: { mode: 'on-demand' },
    protectData: true,
    retentionDays: DEFAULT_RETENTION_DAYS,
    // The largest merchant's 180 days of orders, in the columns training reads, are a few GB.
    lake: { bytesScannedCutoffPerQuery: 100 * GB },
    alarms: { serverErrorRatePercent: 1, p99LatencyMs: 1000 },
  },
};

/** `AbuseDecision-<stage>-<part>`: stack names say the environment, so both fit in one account. */
export function stackName(
  stage: StageName,
  part: 'Data' | 'Api' | 'Learning' | 'Webhooks' | 'Uploads' | 'Import' | 'Lake' | 'Privacy',
): string {
  return `AbuseDecision-${stage}-${part}`;
}

/** The deployment target: the stage's own account/region, else whatever the CLI resolved. */
export function stackEnvironment(
  config: StageConfig,
  env: NodeJS.ProcessEnv = process.env,
): { account: string | undefined; region: string | undefined } {
  return {
    account: config.account ?? env.CDK_DEFAULT_ACCOUNT,
    region: config.region ?? env.CDK_DEFAULT_REGION,
  };
}

/** What a stack deletion does to data-bearing resources: keep them where data is protected. */
export const removalPolicyFor = (protectData: boolean): RemovalPolicy =>
  protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

/** The variables every function of a stage shares: its name, log level and retention. */
export const commonEnvironment = (config: StageConfig): Record<string, string> => ({
  ENVIRONMENT: config.stage,
  POWERTOOLS_LOG_LEVEL: config.logLevel,
  RETENTION_DAYS: JSON.stringify(config.retentionDays),
});
