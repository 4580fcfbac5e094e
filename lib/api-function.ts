import { join } from 'node:path';
import { ArnFormat, Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Environment } from '../shared/config.ts';
import { functionTimeoutSeconds } from '../shared/contract/endpoints.ts';
import { digestKeySecretPrefix } from '../shared/digests/digest-keys.ts';
import {
  BUNDLE_ALIASES,
  CEL_CHUNK_DEFINE,
  CEL_CHUNK_ENTRY,
  CREATE_REQUIRE_BANNER,
  REPO_ROOT,
} from './lambda-bundle.ts';
import { nagPseudo } from './nag-pseudo.ts';
import type { TableAccess } from './table-access.ts';
import { grantTableAccess } from './table-grant.ts';

/** Must equal SERVICE_NAME in shared/observability.ts (the infra test checks it). */
export const POWERTOOLS_SERVICE_NAME = 'abuse-decision';
export const METRICS_NAMESPACE = 'AbuseDecision';

export interface ApiFunctionProps {
  /** The function's name in the route table (its timeout comes from FUNCTION_TIMEOUT_SECONDS). */
  name: string;
  /** Handler module relative to the repository root, exporting `handler`. */
  handlerFile: string;
  description: string;
  /** Caller's variables; they win over the construct's defaults. */
  environment: Record<string, string>;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** Defaults fit a request (FUNCTION_TIMEOUT_SECONDS, 1 GB); the training job and the webhook worker ask for more. */
  timeout?: Duration;
  memorySize?: number;
  /** The lake's query files (shared/lake/queries/), copied beside the bundle for lakeQuery to read. */
  withLakeQueries?: boolean;
}

/**
 * "An API function": runtime, architecture, tracing, log group, bundling and source maps are fixed
 * here once, so the functions cannot drift apart. Its role starts with nothing but writing
 * to its own log group (and X-Ray); table access is added only through `bindTable`.
 */
export class ApiFunction extends Construct {
  readonly handler: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.handlerFile}`,
    });
    this.logGroup.grantWrite(this.role);

    this.handler = new NodejsFunction(this, 'Function', {
      entry: join(REPO_ROOT, props.handlerFile),
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.seconds(functionTimeoutSeconds(props.name)),
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      role: this.role,
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: CREATE_REQUIRE_BANNER,
        minify: true,
        keepNames: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // The AWS SDK is bundled (pinned, tree-shaken) rather than taken from the runtime.
        bundleAwsSDK: true,
        externalModules: [],
        define: { ...CEL_CHUNK_DEFINE },
        esbuildArgs: {
          ...Object.fromEntries(Object.entries(BUNDLE_ALIASES).map(([from, to]) => [`--alias:${from}`, to])),
          // The CEL chunk stays out of index.mjs; the hook below builds it beside it (lib/lambda-bundle.ts).
          [`--external:${CEL_CHUNK_ENTRY}`]: true,
        },
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => [
            `"${process.execPath}" "${join(REPO_ROOT, 'lib/lambda-bundle.ts')}" "${outputDir}"`,
            ...(props.withLakeQueries
              ? [`cp -R "${join(REPO_ROOT, 'shared/lake/queries')}" "${join(outputDir, 'queries')}"`]
              : []),
          ],
        },
        // Local esbuild only: synth must work offline and without Docker.
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no ' +
        'resource-level permissions, so the statement Lambda tracing needs must name Resource "*".',
    });
  }

  /**
   * Lets the function read the merchants' identity digest keys (shared/digests/digest-keys.ts):
   * GetSecretValue on the stage's digest-key secrets only, each read once per instance.
   */
  readDigestKeys(stage: Environment): void {
    this.grantDigestKeys(stage, 'secretsmanager:GetSecretValue', 'read-only');
  }

  /** Lets the function delete a merchant's digest key, as offboarding does, and nothing else of it. */
  deleteDigestKeys(stage: Environment): void {
    this.grantDigestKeys(stage, 'secretsmanager:DeleteSecret', 'delete-only (offboarding)');
  }

  private grantDigestKeys(stage: Environment, action: string, only: string): void {
    const prefix = digestKeySecretPrefix(stage);
    this.handler.addEnvironment('DIGEST_KEY_SECRET_PREFIX', prefix);
    const stack = Stack.of(this);
    const { partition, region, account } = nagPseudo(stack);
    this.role.addToPolicy(
      new PolicyStatement({
        actions: [action],
        resources: [
          stack.formatArn({
            service: 'secretsmanager',
            resource: 'secret',
            resourceName: `${prefix}*`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ],
      }),
    );
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:secretsmanager:${region}:${account}:secret:${prefix}*]`,
      reason:
        "One secret per merchant under the stage's digest-key prefix (created with the merchant, deleted " +
        `when it is offboarded): ${only}, on that prefix only, since the merchants are not known at deploy time.`,
    });
  }

  /**
   * Tells the function which key seals webhook signing secrets (WEBHOOK_SECRETS_KEY_ARN) and grants
   * the one action its use needs (shared/webhooks/secret-box.ts): `seal` (GenerateDataKey) where a
   * secret is made and shown once, `open` (Decrypt) where one signs. No other function holds either.
   */
  bindWebhookSecretsKey(key: IKey, use: 'seal' | 'open'): void {
    this.handler.addEnvironment('WEBHOOK_SECRETS_KEY_ARN', key.keyArn);
    key.grant(this.role, use === 'seal' ? 'kms:GenerateDataKey' : 'kms:Decrypt');
  }

  /**
   * Tells the function which table to use (TABLE_NAME) and grants exactly the listed actions on
   * it: one statement on the table's ARN, plus the queried indexes' ARNs when there are any.
   */
  bindTable(table: ITable, access: TableAccess): void {
    this.handler.addEnvironment('TABLE_NAME', table.tableName);
    grantTableAccess(this.role, table, access);
  }
}

/**
 * cdk-nag's finding on a stream-fed function's role (the webhook and upload workers), acknowledged
 * with its reason once.
 */
export function acknowledgeStreamReading(role: Role): void {
  Validations.of(role).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'Two actions without resource-level permissions need Resource "*": X-Ray tracing ' +
      '(xray:PutTraceSegments, xray:PutTelemetryRecords) and dynamodb:ListStreams, which the stream ' +
      'event source needs; reading the stream itself is granted on its ARN only.',
  });
}
