/**
 * Infrastructure, per environment, by synthesis only (no AWS account): the app is synthesized once
 * (local esbuild, no Docker) and every assertion reads the resulting templates and assets.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { marshall } from '@aws-sdk/util-dynamodb';
import { App, type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import cdkNag from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAbuseDecisionApp, type EnvironmentStacks } from '../lib/abuse-decision-app.ts';
import { NO_CREDENTIAL_LABEL } from '../lib/api-firewall.ts';
import { POWERTOOLS_SERVICE_NAME } from '../lib/api-function.ts';
import { STAGES, type StageName } from '../lib/config.ts';
import { IMPORT_HANDLER_FILE } from '../lib/import-job.ts';
import { JOB_ITEM_EVENT, JOB_START_RETRY } from '../lib/job-starts.ts';
import { QUERY_RESULT_EXPIRY_DAYS } from '../lib/lake-stack.ts';
import { CEL_CHUNK_FILE, REPO_ROOT } from '../lib/lambda-bundle.ts';
import { LEARNING_HANDLER_FILES } from '../lib/learning-stack.ts';
import { OVERVIEW_FEED_RETRIES } from '../lib/overview-feed.ts';
import {
  LAKE_PASS_SCHEDULE,
  PRIVACY_STREAM_RETRIES,
  PRIVACY_WORKER_HANDLER_FILE,
} from '../lib/privacy-stack.ts';
import {
  IMPORT_JOB_ACCESS,
  OVERVIEW_FEED_ACCESS,
  PRIVACY_WORKER_ACCESS,
  TABLE_ACCESS,
  type TableAction,
  UPLOAD_WORKER_ACCESS,
  WEBHOOK_WORKER_ACCESS,
} from '../lib/table-access.ts';
import { UPLOAD_RUN_RETRIES } from '../lib/upload-worker.ts';
import { DELIVERY_BACKLOG_ALARM } from '../lib/webhook-worker.ts';
import { SESSION_COOKIE_MARKER, WELL_FORMED_AUTHORIZATION_REGEX } from '../shared/auth/credential-format.ts';
import { EVENT_TYPES } from '../shared/contract/endpoints.ts';
import { digestKeySecretPrefix } from '../shared/digests/digest-keys.ts';
import { FALLBACK_HANDLER_FILE, PUBLIC_ROUTES, ROUTES } from '../shared/http/routes.ts';
import { FAILED_AUTHENTICATION_LIMIT } from '../shared/http/web-acl-rules.ts';
import { ERASURE_STAGING_PREFIX } from '../shared/lake/lake-erasure.ts';
import { LAKE_TABLE_NAMES, LAKE_TABLES } from '../shared/lake/lake-tables.ts';
import { CONSOLE_EVENT_TYPES } from '../shared/schemas/console.ts';
import { DECISION_OUTCOMES } from '../shared/schemas/decision.ts';
import { jobItemAttributes } from '../shared/store/job-items.ts';
import { backtestKeys, keyOfItem, keys, lakeExportKeys, uploadKeys } from '../shared/store/keys.ts';
import { LAKE_RECHECK_MS, PRIVACY_SLICE_MS } from '../shared/use-cases/privacy-requests.ts';

/** One function per event route, the management API's one, the 404/405 fallback, the OpenAPI document's. */
const FUNCTION_COUNT = new Set(ROUTES.map((r) => r.functionName)).size + 1 + PUBLIC_ROUTES.length;
/** Event endpoints have a function each; the management API's routes share `console`. */
const EVENT_ROUTES = ROUTES.filter((r) => r.functionName === r.endpoint);
const CONSOLE_ROUTES = ROUTES.filter((r) => r.functionName === 'console');
/** CDK's own BucketDeployment function (the console's files), not one of ours. */
const isOurFunction = ([id]: [string, unknown]) => !id.startsWith('CustomCDKBucketDeployment');

import { SERVICE_NAME } from '../shared/observability.ts';
import {
  GLOBAL_INDEXES,
  GSI1,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from '../shared/store/table-definition.ts';

const { AwsSolutionsChecks } = cdkNag;

type Json = Record<string, unknown>;
interface CfnResource {
  Type: string;
  Properties: Json;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
}

/** The feature flags `cdk synth` uses, so the test synthesizes exactly what the CLI does. */
const cdkContext = (JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as { context: Json })
  .context;

const KNOWN_TABLE_ACTIONS: readonly TableAction[] = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
];

let outdir: string;
let assembly: CloudAssembly;
let stacks: Record<StageName, EnvironmentStacks | undefined>;

beforeAll(() => {
  outdir = mkdtempSync(join(tmpdir(), 'cdk-infra-test-'));
  const app = new App({ outdir, context: cdkContext });
  stacks = buildAbuseDecisionApp(app);
  // Runs cdk-nag and CloudFormation validation too: an unacknowledged finding throws here.
  assembly = app.synth();
});

function environment(stage: StageName): EnvironmentStacks {
  const built = stacks[stage];
  if (!built) throw new Error(`no stacks for ${stage}`);
  return built;
}

function templateOf(stack: Stack): Template {
  return Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template as Json);
}

function resources(template: Template, type?: string): [string, CfnResource][] {
  const all = Object.entries(
    (
      template.toJSON() as {
        Resources: Record<string, Omit<CfnResource, 'Properties'> & { Properties?: Json }>;
      }
    ).Resources,
  ).map(([id, r]): [string, CfnResource] => [id, { ...r, Properties: r.Properties ?? {} }]);
  return type ? all.filter(([, r]) => r.Type === type) : all;
}

/** The one resource of a type in the template. */
function only(template: Template, type: string): CfnResource {
  const found = resources(template, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return (found[0] as [string, CfnResource])[1];
}

function logicalId(construct: IConstruct): string {
  return Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement);
}

/** Full path of every API Gateway resource, by logical id (the root is ''). */
function resourcePaths(template: Template): Map<string, string> {
  const parts = new Map(
    resources(template, 'AWS::ApiGateway::Resource').map(([id, r]) => [
      id,
      { pathPart: String(r.Properties.PathPart), parentId: r.Properties.ParentId as Json },
    ]),
  );
  const pathOf = (id: string): string => {
    const part = parts.get(id);
    if (!part) throw new Error(`unknown resource ${id}`);
    const parentRef = part.parentId.Ref;
    return `${typeof parentRef === 'string' ? pathOf(parentRef) : ''}/${part.pathPart}`;
  };
  return new Map([...parts.keys()].map((id) => [id, pathOf(id)]));
}

/** The function logical id a method's Lambda proxy integration invokes. */
function integratedFunction(method: CfnResource): string | undefined {
  const uri = JSON.stringify((method.Properties.Integration as Json | undefined)?.Uri ?? {});
  return /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/.exec(uri)?.[1];
}

function methodsByPath(template: Template): { path: string; httpMethod: string; fn: string | undefined }[] {
  const paths = resourcePaths(template);
  return resources(template, 'AWS::ApiGateway::Method').map(([, m]) => {
    const ref = (m.Properties.ResourceId as Json).Ref;
    return {
      path: typeof ref === 'string' ? (paths.get(ref) ?? '?') : '/',
      httpMethod: String(m.Properties.HttpMethod),
      fn: integratedFunction(m),
    };
  });
}

function policyStatements(template: Template): { owner: string; statement: Json }[] {
  const documents: { owner: string; document: Json }[] = [
    ...resources(template, 'AWS::IAM::Policy').map(([owner, r]) => ({
      owner,
      document: r.Properties.PolicyDocument as Json,
    })),
    ...resources(template, 'AWS::IAM::ManagedPolicy').map(([owner, r]) => ({
      owner,
      document: r.Properties.PolicyDocument as Json,
    })),
    ...resources(template, 'AWS::IAM::Role').flatMap(([owner, r]) =>
      ((r.Properties.Policies as { PolicyDocument: Json }[] | undefined) ?? []).map((p) => ({
        owner,
        document: p.PolicyDocument,
      })),
    ),
  ];
  return documents.flatMap(({ owner, document }) =>
    (document.Statement as Json[]).map((statement) => ({ owner, statement })),
  );
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** The statements granted to one role: on the role itself or in the policies attached to it. */
function statementsOf(
  template: Template,
  statements: ReturnType<typeof policyStatements>,
  role: IConstruct | string,
) {
  const id = typeof role === 'string' ? role : logicalId(role);
  const rolePolicies = new Set(
    resources(template, 'AWS::IAM::Policy')
      .filter(([, p]) => JSON.stringify(p.Properties.Roles) === JSON.stringify([{ Ref: id }]))
      .map(([policyId]) => policyId),
  );
  return statements.filter(({ owner }) => owner === id || rolePolicies.has(owner));
}

/** A role's grants on the table: each statement's actions, sorted, and its condition. */
function tableGrantsOf(statements: Json[]) {
  return statements
    .filter((s) => asList(s.Action).some((a) => String(a).startsWith('dynamodb:')))
    .map((s) => ({ actions: asList(s.Action).map(String).sort(), condition: s.Condition }));
}

describe.each(['sandbox', 'production'] as const)('%s environment', (stage) => {
  const config = STAGES[stage];

  it('names both stacks after the environment, the API depending on the data stack', () => {
    const { data, api } = environment(stage);
    expect(data.stackName).toBe(`AbuseDecision-${stage}-Data`);
    expect(api.stackName).toBe(`AbuseDecision-${stage}-Api`);
    expect(api.dependencies).toContain(data);
  });

  it('has one on-demand table (the configured capacity) built from the store constants, with PITR, TTL and encryption', () => {
    const template = templateOf(environment(stage).data);
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    expect(resources(templateOf(environment(stage).api), 'AWS::DynamoDB::Table')).toHaveLength(0);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: PARTITION_KEY, KeyType: 'HASH' },
        { AttributeName: SORT_KEY, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey, KeyType: 'HASH' },
          { AttributeName: index.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      // SSEEnabled alone is the AWS-managed key (aws/dynamodb); a customer-managed key is named.
      SSESpecification:
        config.tableEncryption === 'customer-managed'
          ? { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: Match.anyValue() }
          : { SSEEnabled: true },
    });
  });

  it('retains and protects production data; lets sandbox data go with its stack', () => {
    const { data, api } = environment(stage);
    const template = templateOf(data);
    const table = only(template, 'AWS::DynamoDB::Table');
    const protect = stage === 'production';
    expect(config.protectData).toBe(protect);
    expect(table.Properties.DeletionProtectionEnabled).toBe(protect);
    expect(table.DeletionPolicy).toBe(protect ? 'Retain' : 'Delete');
    expect(table.UpdateReplacePolicy).toBe(protect ? 'Retain' : 'Delete');
    expect(data.terminationProtection).toBe(protect);
    expect(api.terminationProtection).toBe(protect);
    if (config.tableEncryption === 'customer-managed') {
      template.hasResource('AWS::KMS::Key', {
        Properties: Match.objectLike({ EnableKeyRotation: true }),
        DeletionPolicy: protect ? 'Retain' : 'Delete',
      });
    }
  });

  it('routes the management API (GET, PUT, POST, DELETE) to its one console function', () => {
    const { api } = environment(stage);
    const methods = methodsByPath(templateOf(api));
    const consoleFn = logicalId(api.functions.get('console')!.handler);
    expect(CONSOLE_ROUTES.length).toBeGreaterThanOrEqual(14);
    for (const route of CONSOLE_ROUTES) {
      const method = methods.find((m) => m.path === route.path && m.httpMethod === route.method);
      expect(method?.fn, `${route.method} ${route.path}`).toBe(consoleFn);
    }
  });

  it('routes the seven POST paths, each to its own function', () => {
    const { api } = environment(stage);
    const methods = methodsByPath(templateOf(api));
    const posts = methods.filter(
      (m) => m.httpMethod === 'POST' && EVENT_ROUTES.some((route) => route.path === m.path),
    );
    expect(posts).toHaveLength(EVENT_ROUTES.length);
    expect(EVENT_ROUTES).toHaveLength(7);
    const seen = new Set<string>();
    for (const route of EVENT_ROUTES) {
      const fn = api.functions.get(route.endpoint);
      expect(fn, route.endpoint).toBeDefined();
      const expected = logicalId(fn!.handler);
      expect(posts.find((m) => m.path === route.path)?.fn, route.path).toBe(expected);
      seen.add(expected);
    }
    expect(seen.size).toBe(EVENT_ROUTES.length);
  });

  it('serves GET /v1/openapi.json from its own function, without an authorizer and without table access', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    const openapi = logicalId(api.functions.get('openapi')!.handler);
    const get = methodsByPath(template).find((m) => m.path === '/v1/openapi.json' && m.httpMethod === 'GET');
    expect(get?.fn).toBe(openapi);
    const methods = resources(template, 'AWS::ApiGateway::Method').map(([, m]) => m.Properties);
    expect(methods.every((m) => m.AuthorizationType === 'NONE')).toBe(true);
    const statements = policyStatements(template).filter(({ owner }) => owner.startsWith('OpenapiFunction'));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.flatMap(({ statement }) => asList(statement.Action).map(String))).not.toContainEqual(
      expect.stringMatching(/^dynamodb:/),
    );
  });

  it('sends wrong methods and unknown paths to the fallback (ANY on every route resource, root, proxy)', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    const fallback = logicalId(api.functions.get('fallback')!.handler);
    const anyMethods = methodsByPath(template).filter((m) => m.httpMethod === 'ANY');
    expect(anyMethods.every((m) => m.fn === fallback)).toBe(true);
    const anyPaths = new Set(anyMethods.map((m) => m.path));
    expect(anyPaths).toContain('/');
    expect(anyPaths).toContain('/{proxy+}');
    for (const route of [...ROUTES, ...PUBLIC_ROUTES]) {
      const segments = route.path.split('/').filter(Boolean);
      for (let i = 1; i <= segments.length; i++) {
        expect(anyPaths, route.path).toContain(`/${segments.slice(0, i).join('/')}`);
      }
    }
    // Every resource the template has is either on a route's path or the greedy proxy.
    expect(new Set(resourcePaths(template).values())).toEqual(
      new Set([...anyPaths].filter((p) => p !== '/')),
    );
  });

  it('runs every function on nodejs24.x, arm64, active tracing, source maps and Powertools settings', () => {
    const functions = resources(templateOf(environment(stage).api), 'AWS::Lambda::Function').filter(
      isOurFunction,
    );
    expect(functions).toHaveLength(FUNCTION_COUNT);
    for (const [id, fn] of functions) {
      const props = fn.Properties;
      expect(props.Runtime, id).toBe('nodejs24.x');
      expect(props.Architectures, id).toEqual(['arm64']);
      expect(props.TracingConfig, id).toEqual({ Mode: 'Active' });
      expect(props.LoggingConfig, id).toEqual({ LogGroup: { Ref: expect.any(String) } });
      expect(props.Handler, id).toBe('index.handler');
      const variables = (props.Environment as { Variables: Json }).Variables;
      expect(variables, id).toMatchObject({
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: 'AbuseDecision',
        POWERTOOLS_LOG_LEVEL: config.logLevel,
        ENVIRONMENT: stage,
        DEFAULT_RATE_LIMIT_PER_SECOND: String(config.defaultRateLimit.perSecond),
        DEFAULT_RATE_LIMIT_BURST: String(config.defaultRateLimit.burst),
        // Each record kind's retention (docs/privacy.md), as lib/config.ts sets it for the stage.
        RETENTION_DAYS: JSON.stringify(config.retentionDays),
      });
      expect(JSON.stringify(variables.TABLE_NAME), id).toContain(`AbuseDecision-${stage}-Data`);
    }
    expect(POWERTOOLS_SERVICE_NAME).toBe(SERVICE_NAME);
  });

  it('keeps function and access logs in log groups with the configured retention', () => {
    const template = templateOf(environment(stage).api);
    const logGroups = resources(template, 'AWS::Logs::LogGroup');
    // Our functions', the access log, and the console deployment's (CDK's BucketDeployment).
    expect(logGroups).toHaveLength(FUNCTION_COUNT + 2);
    for (const [id, group] of logGroups) {
      expect(group.Properties.RetentionInDays, id).toBe(config.logRetention);
      expect(group.DeletionPolicy, id).toBe(config.protectData ? 'Retain' : 'Delete');
    }
  });

  it('grants each function only its own table actions, never a wildcard', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    const statements = policyStatements(template);
    for (const { owner, statement } of statements) {
      const actions = asList(statement.Action).map(String);
      for (const action of actions) {
        expect(action, owner).not.toBe('*');
        expect(action, owner).not.toMatch(/^[a-z0-9-]+:\*$/);
        if (action.startsWith('dynamodb:')) {
          expect(KNOWN_TABLE_ACTIONS, owner).toContain(action);
          expect(asList(statement.Resource), owner).not.toContain('*');
        }
      }
      // X-Ray has no resource-level permissions; nothing else may name Resource "*" but CDK's own
      // console deployment, whose CloudFront invalidation takes none either.
      if (asList(statement.Resource).includes('*') && !owner.startsWith('CustomCDKBucketDeployment')) {
        expect(
          actions.every((a) => a.startsWith('xray:')),
          owner,
        ).toBe(true);
      }
    }

    for (const [name, fn] of api.functions) {
      const own = statementsOf(template, statements, fn.role);
      const granted = [
        ...new Set(
          own
            .flatMap(({ statement }) => asList(statement.Action).map(String))
            .filter((action) => action.startsWith('dynamodb:')),
        ),
      ].sort();
      const access = TABLE_ACCESS[name as keyof typeof TABLE_ACCESS];
      expect(granted, name).toEqual([...access.actions].sort());
      // Every function authenticates (GetItem on the key) but the public OpenAPI document's.
      expect(granted.includes('dynamodb:GetItem'), name).toBe(name !== 'openapi');
      // Only a function that queries an index (the console's, GSI1) may reach one.
      expect(JSON.stringify(own).includes('/index/'), name).toBe(access.queriedIndexes.length > 0);
    }
  });

  it('lets every function read the merchants’ digest keys of its stage only, told where they are', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    const statements = policyStatements(template);
    const prefix = digestKeySecretPrefix(stage);
    for (const [name, fn] of api.functions) {
      const reads = statementsOf(template, statements, fn.role).filter(
        ({ statement }) =>
          asList(statement.Action).includes('secretsmanager:GetSecretValue') &&
          JSON.stringify(statement.Resource).includes(`:secret:${prefix}*`),
      );
      expect(reads, name).toHaveLength(1);
      expect(JSON.stringify(reads[0]!.statement.Resource)).not.toContain(
        stage === 'sandbox' ? 'production' : 'sandbox',
      );
    }
    const variables = resources(template, 'AWS::Lambda::Function')
      .filter(isOurFunction)
      .map(([, f]) => (f.Properties.Environment as { Variables: Record<string, unknown> }).Variables);
    for (const vars of variables) expect(vars.DIGEST_KEY_SECRET_PREFIX).toBe(prefix);
  });

  it('answers gateway-made errors in the envelope with X-Request-Id', () => {
    const template = templateOf(environment(stage).api);
    const expectations: [string, string | undefined, string][] = [
      ['THROTTLED', '429', 'rate_limited'],
      ['RESOURCE_NOT_FOUND', '404', 'not_found'],
      ['MISSING_AUTHENTICATION_TOKEN', '404', 'not_found'],
      ['REQUEST_TOO_LARGE', '413', 'payload_too_large'],
      ['DEFAULT_4XX', undefined, 'invalid_request'],
      ['DEFAULT_5XX', undefined, 'internal_error'],
    ];
    const responses = new Map(
      resources(template, 'AWS::ApiGateway::GatewayResponse').map(([, r]) => [
        String(r.Properties.ResponseType),
        r.Properties,
      ]),
    );
    for (const [type, status, code] of expectations) {
      const response = responses.get(type);
      if (!response) throw new Error(`no gateway response for ${type}`);
      expect(response.StatusCode, type).toBe(status);
      expect(response.ResponseParameters, type).toMatchObject({
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
      });
      const templateText = String((response.ResponseTemplates as Json)['application/json']);
      // API Gateway fills the $context variables; the result must be the contract's envelope.
      const body = JSON.parse(templateText.replace('$context.error.messageString', '"Gateway message"')) as {
        error: Json;
      };
      expect(body.error, type).toEqual({
        code,
        message: expect.any(String),
        requestId: '$context.requestId',
      });
    }
    expect(responses.get('THROTTLED')?.ResponseParameters).toMatchObject({
      'gatewayresponse.header.Retry-After': "'1'",
    });
  });

  it('puts a web ACL in front of the stage: failed authentication and a share of the stage per address', () => {
    const template = templateOf(environment(stage).api);
    const acl = only(template, 'AWS::WAFv2::WebACL').Properties;
    expect(acl).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
    const rules = acl.Rules as Json[];
    expect(rules.map((r) => r.Name)).toEqual([
      'NoWellFormedCredential',
      'FailedAuthenticationPerAddress',
      'ShareOfStagePerAddress',
    ]);
    const [label, failed, share] = rules as [Json, Json, Json];
    // Rule 1 only labels (counts): a request without a well-formed key, session cookie or public path.
    expect(label.Action).toEqual({ Count: {} });
    expect(label.RuleLabels).toEqual([{ Name: NO_CREDENTIAL_LABEL }]);
    const conditions = ((label.Statement as Json).AndStatement as { Statements: Json[] }).Statements.map(
      (c) => (c.NotStatement as { Statement: Json }).Statement,
    );
    expect(conditions[0]?.RegexMatchStatement).toEqual({
      FieldToMatch: { SingleHeader: { Name: 'authorization' } },
      RegexString: WELL_FORMED_AUTHORIZATION_REGEX,
      TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
    });
    expect(conditions[1]?.ByteMatchStatement).toMatchObject({
      FieldToMatch: { SingleHeader: { Name: 'cookie' } },
      SearchString: SESSION_COOKIE_MARKER,
    });
    expect(conditions[2]?.ByteMatchStatement).toMatchObject({
      FieldToMatch: { UriPath: {} },
      PositionalConstraint: 'ENDS_WITH',
      SearchString: PUBLIC_ROUTES[0]?.path,
    });
    // Rule 2 blocks per address, counting only the labelled requests.
    expect(failed.Action).toEqual({ Block: {} });
    expect((failed.Statement as Json).RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: FAILED_AUTHENTICATION_LIMIT.requests,
      EvaluationWindowSec: FAILED_AUTHENTICATION_LIMIT.windowSeconds,
      ScopeDownStatement: { LabelMatchStatement: { Scope: 'LABEL', Key: NO_CREDENTIAL_LABEL } },
    });
    // Rule 3: half the stage's throttle per address, whatever it sends.
    expect(share.Action).toEqual({ Block: {} });
    expect((share.Statement as Json).RateBasedStatement).toEqual({
      AggregateKeyType: 'IP',
      Limit: config.apiThrottle.rateLimit * 0.5 * 300,
      EvaluationWindowSec: 300,
    });
    const association = only(template, 'AWS::WAFv2::WebACLAssociation').Properties;
    const [[stageId]] = resources(template, 'AWS::ApiGateway::Stage') as [[string, CfnResource]];
    expect(JSON.stringify(association.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
    expect(association.WebACLArn).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^FirewallWebAcl/), 'Arn'],
    });
    // A blocked request is answered 429 in the envelope, as a rate limit.
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'WAF_FILTERED',
      StatusCode: '429',
      ResponseParameters: Match.objectLike({
        'gatewayresponse.header.Retry-After': `'${FAILED_AUTHENTICATION_LIMIT.windowSeconds}'`,
      }),
    });
  });

  it('throttles the stage as a backstop and writes JSON access logs', () => {
    const template = templateOf(environment(stage).api);
    const props = only(template, 'AWS::ApiGateway::Stage').Properties;
    expect(props.StageName).toBe(stage);
    expect(props.TracingEnabled).toBe(true);
    expect(props.MethodSettings).toEqual([
      expect.objectContaining({
        HttpMethod: '*',
        ResourcePath: '/*',
        LoggingLevel: 'ERROR',
        ThrottlingRateLimit: config.apiThrottle.rateLimit,
        ThrottlingBurstLimit: config.apiThrottle.burstLimit,
      }),
    ]);
    const format = JSON.parse(String((props.AccessLogSetting as Json).Format)) as Json;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status' });
  });

  it('alarms to an SNS topic on 5xx rate, p99 latency, function errors and throttles, and table health', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    const topic = logicalId(api.monitoring.topic);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    expect(alarms).toHaveLength(1 + 3 * FUNCTION_COUNT + 2);
    for (const alarm of alarms) expect(alarm.AlarmActions).toEqual([{ Ref: topic }]);
    const metricNames = alarms.map((a) =>
      a.MetricName
        ? String(a.MetricName)
        : JSON.stringify(a.Metrics)
            .match(/"MetricName":"(\w+)"/g)
            ?.join(),
    );
    expect(metricNames.filter((m) => m === 'Duration')).toHaveLength(FUNCTION_COUNT);
    expect(
      alarms.filter((a) => a.MetricName === 'Duration').every((a) => a.ExtendedStatistic === 'p99'),
    ).toBe(true);
    expect(metricNames.filter((m) => m === 'Errors')).toHaveLength(FUNCTION_COUNT);
    expect(metricNames.filter((m) => m === 'Throttles')).toHaveLength(FUNCTION_COUNT);
    expect(metricNames.some((m) => m?.includes('5XXError'))).toBe(true);
    expect(metricNames.some((m) => m?.includes('SystemErrors'))).toBe(true);
    expect(metricNames.some((m) => m?.includes('ThrottledRequests'))).toBe(true);
    template.resourceCountIs('AWS::SNS::Subscription', config.alarmEmail ? 1 : 0);
  });

  it('charts decisions by event type and outcome, and latency, on a dashboard', () => {
    const template = templateOf(environment(stage).api);
    const body = JSON.stringify(only(template, 'AWS::CloudWatch::Dashboard').Properties.DashboardBody);
    for (const eventType of EVENT_TYPES) {
      for (const outcome of DECISION_OUTCOMES) {
        expect(body).toContain(
          `[\\"AbuseDecision\\",\\"Decisions\\",\\"eventType\\",\\"${eventType}\\",\\"outcome\\",\\"${outcome}\\",\\"service\\",\\"${SERVICE_NAME}\\"`,
        );
      }
    }
    expect(body).toContain('\\"Latency\\"');
    expect(body).toContain('\\"Duration\\"');
  });

  it('hard-codes no physical names, so both environments fit in one account', () => {
    const physicalNames: Record<string, string> = {
      'AWS::DynamoDB::Table': 'TableName',
      'AWS::KMS::Alias': 'AliasName',
      'AWS::Lambda::Function': 'FunctionName',
      'AWS::IAM::Role': 'RoleName',
      'AWS::Logs::LogGroup': 'LogGroupName',
      'AWS::SNS::Topic': 'TopicName',
      'AWS::CloudWatch::Dashboard': 'DashboardName',
      'AWS::CloudWatch::Alarm': 'AlarmName',
    };
    const { data, api, webhooks, uploads, imports, privacy } = environment(stage);
    for (const stack of [data, api, webhooks, uploads, imports, privacy]) {
      for (const [id, resource] of resources(templateOf(stack))) {
        const key = physicalNames[resource.Type];
        if (key) expect(resource.Properties[key], `${id}.${key}`).toBeUndefined();
      }
    }
    // The REST API's name only labels metrics and the console; it carries the environment.
    expect(only(templateOf(environment(stage).api), 'AWS::ApiGateway::RestApi').Properties.Name).toBe(
      `AbuseDecision-${stage}`,
    );
  });

  it('serves the console from a private bucket through CloudFront (OAC), with /v1/* sent to API Gateway uncached', () => {
    const { api } = environment(stage);
    const template = templateOf(api);
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: Match.anyValue(),
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::CloudFront::OriginAccessControl', {
      OriginAccessControlConfig: Match.objectLike({
        OriginAccessControlOriginType: 's3',
        SigningBehavior: 'always',
      }),
    });
    const distribution = only(template, 'AWS::CloudFront::Distribution').Properties.DistributionConfig as {
      Origins: {
        Id: string;
        S3OriginConfig?: Json;
        OriginAccessControlId?: Json;
        DomainName: Json;
        OriginPath?: string;
      }[];
      DefaultCacheBehavior: {
        TargetOriginId: string;
        ViewerProtocolPolicy: string;
        FunctionAssociations: Json[];
      };
      CacheBehaviors: {
        PathPattern: string;
        TargetOriginId: string;
        AllowedMethods: string[];
        CachePolicyId: string;
        OriginRequestPolicyId: string;
        ViewerProtocolPolicy: string;
      }[];
      DefaultRootObject: string;
    };
    const s3Origin = distribution.Origins.find(
      (o) => o.Id === distribution.DefaultCacheBehavior.TargetOriginId,
    )!;
    expect(s3Origin.OriginAccessControlId).toBeDefined();
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(distribution.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(distribution.DefaultRootObject).toBe('index.html');
    expect(distribution.CacheBehaviors).toHaveLength(1);
    const [apiBehaviour] = distribution.CacheBehaviors;
    expect(apiBehaviour).toMatchObject({
      PathPattern: '/v1/*',
      ViewerProtocolPolicy: 'https-only',
      // Managed policies: CachingDisabled, AllViewerExceptHostHeader.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
      OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac',
    });
    expect([...apiBehaviour!.AllowedMethods].sort()).toEqual(
      ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].sort(),
    );
    const apiOrigin = distribution.Origins.find((o) => o.Id === apiBehaviour!.TargetOriginId)!;
    expect(JSON.stringify(apiOrigin.DomainName)).toContain(logicalId(api.api));
    // The stage's path (/sandbox, /production), taken from the API's URL.
    expect(JSON.stringify(apiOrigin.OriginPath)).toContain(logicalId(api.api.deploymentStage));
    // The console bucket's policy lets only this distribution read (the exports bucket's only refuses non-TLS).
    const policies = resources(template, 'AWS::S3::BucketPolicy').map(([, p]) =>
      JSON.stringify(p.Properties),
    );
    const policy = policies.find((text) => text.includes(logicalId(api.console.bucket))) ?? '';
    expect(policy).toContain('cloudfront.amazonaws.com');
    expect(policy).toContain('AWS:SourceArn');
    // The built console is copied by the same deployment, and its address is an output.
    template.resourceCountIs('Custom::CDKBucketDeployment', 1);
    template.hasOutput('*', { Description: Match.stringLikeRegexp('merchant console') });
  });

  it('outputs the API URL and the table name for the admin CLI', () => {
    const { data, api } = environment(stage);
    templateOf(data).hasOutput('TableName', {});
    templateOf(api).hasOutput('ApiUrl', {});
    templateOf(api).hasOutput('TableName', {});
  });

  it('passes cdk-nag AwsSolutions: no unacknowledged finding, every acknowledgement with a reason', () => {
    const { data, api, webhooks, uploads, imports, privacy } = environment(stage);
    for (const stack of [data, api, webhooks, uploads, imports, privacy]) {
      const report = new AwsSolutionsChecks().validateScope(stack);
      expect(
        report.violations.map((v) => `${v.ruleName} ${v.violatingResources.map((r) => r.constructPath)}`),
      ).toEqual([]);
      expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
      for (const construct of stack.node.findAll()) {
        for (const entry of construct.node.metadata) {
          if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
          for (const [rule, reason] of Object.entries(entry.data as Record<string, unknown>)) {
            const text = typeof reason === 'string' ? reason : JSON.stringify(reason);
            expect(text.length, `${construct.node.path} ${rule}`).toBeGreaterThan(40);
          }
        }
      }
    }
  });
});

/** What each DynamoDB document-client command needs in IAM. */
const COMMAND_ACTIONS: Record<string, string> = {
  GetCommand: 'dynamodb:GetItem',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  QueryCommand: 'dynamodb:Query',
  ScanCommand: 'dynamodb:Scan',
  PutCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  TransactGetCommand: 'dynamodb:GetItem',
  SendMessageCommand: 'sqs:SendMessage',
  GetObjectCommand: 's3:GetObject',
  // HeadObject is authorised by s3:GetObject.
  HeadObjectCommand: 's3:GetObject',
  GenerateDataKeyCommand: 'kms:GenerateDataKey',
  DecryptCommand: 'kms:Decrypt',
  PutObjectCommand: 's3:PutObject',
  CopyObjectCommand: 's3:PutObject',
  DeleteObjectCommand: 's3:DeleteObject',
  DeleteObjectsCommand: 's3:DeleteObject',
  ListObjectsV2Command: 's3:ListBucket',
  StartQueryExecutionCommand: 'athena:StartQueryExecution',
  GetQueryExecutionCommand: 'athena:GetQueryExecution',
  GetQueryResultsCommand: 'athena:GetQueryResults',
};
/** TransactWriteItems has no IAM action: each item is authorised as its single-item action. */
const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/**
 * The DynamoDB actions a handler's code sends, read from its tree-shaken (unminified) bundle:
 * only our own modules (shared/, functions/) count, so the SDK's own code is ignored.
 */
async function actionsSentBy(
  handlerFile: string,
): Promise<{ actions: string[]; keyActions: string[]; queriesIndex: boolean }> {
  const result = await build({
    entryPoints: [join(REPO_ROOT, handlerFile)],
    absWorkingDir: REPO_ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]?.text ?? '';
  const ours = text
    // Dependencies are labelled `node_modules/...`, or `../<elsewhere>/node_modules/...` when the
    // checkout's node_modules is a link: either way they are not ours.
    .split(/^(?=\/\/ (?:shared\/|functions\/|local\/|\S*node_modules\/))/m)
    .filter((chunk) => /^\/\/ (?:shared|functions)\//.test(chunk))
    .join('\n');
  const actions = new Set<string>();
  for (const [, command] of ours.matchAll(/new (\w+?Command)\d*\(/g)) {
    if (command === 'TransactWriteCommand') continue;
    actions.add(COMMAND_ACTIONS[command ?? ''] ?? `unknown:${command}`);
  }
  for (const [, item] of ours.matchAll(/\b(Put|Update|Delete|ConditionCheck): \{/g)) {
    actions.add(TRANSACT_ITEM_ACTIONS[item ?? ''] ?? `unknown:${item}`);
  }
  // KMS calls are the webhook secrets key's (checked against its grants), apart from the table's.
  const sent = [...actions].sort();
  return {
    actions: sent.filter((action) => !action.startsWith('kms:')),
    keyActions: sent.filter((action) => action.startsWith('kms:')),
    queriesIndex: /\bIndexName\b/.test(ours),
  };
}

describe.each(['sandbox', 'production'] as const)('%s webhook delivery', (stage) => {
  const template = () => templateOf(environment(stage).webhooks);

  it('streams new table images to the worker, filtered to outbox items, with a dead-letter queue', () => {
    templateOf(environment(stage).data).hasResourceProperties('AWS::DynamoDB::Table', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    const mappings = resources(template(), 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(2);
    const stream = mappings.find(([, m]) =>
      JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'),
    );
    expect(stream?.[1].Properties).toMatchObject({
      StartingPosition: 'LATEST',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [expect.stringMatching(/^DeadLetters/), 'Arn'] } },
      },
    });
    const pattern = JSON.parse(
      String(
        (stream?.[1].Properties.FilterCriteria as { Filters: { Pattern: string }[] } | undefined)?.Filters[0]
          ?.Pattern,
      ),
    );
    expect(pattern).toEqual({
      eventName: ['INSERT'],
      dynamodb: { NewImage: { entity: { S: ['webhookEvent'] } } },
    });
  });

  it('makes every attempt from delayed messages on an encrypted SQS queue with a dead-letter queue', () => {
    const queues = resources(template(), 'AWS::SQS::Queue');
    expect(queues).toHaveLength(2);
    const retries = queues.find(([, q]) => q.Properties.RedrivePolicy !== undefined)?.[1];
    expect(retries?.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      RedrivePolicy: {
        maxReceiveCount: 5,
        deadLetterTargetArn: { 'Fn::GetAtt': [expect.stringMatching(/^DeadLetters/), 'Arn'] },
      },
    });
    const sqsMapping = resources(template(), 'AWS::Lambda::EventSourceMapping').find(
      ([, m]) => !JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'),
    );
    expect(sqsMapping?.[1].Properties.FunctionResponseTypes).toEqual(['ReportBatchItemFailures']);
    template().hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 60,
      Runtime: 'nodejs24.x',
      Environment: {
        Variables: Match.objectLike({
          WEBHOOK_DELIVERY_QUEUE_URL: { Ref: Match.stringLikeRegexp('^Retries') },
          ENVIRONMENT: stage,
        }),
      },
    });
  });

  it('grants the worker exactly its table actions, the stream, and its own queues', () => {
    const statements = policyStatements(template());
    const actions = statements.flatMap(({ statement }) => asList(statement.Action).map(String));
    const tableActions = actions.filter(
      (a) => a.startsWith('dynamodb:') && !/Stream|GetRecords|GetShardIterator/.test(a),
    );
    expect([...new Set(tableActions)].sort()).toEqual([...WEBHOOK_WORKER_ACCESS.actions].sort());
    for (const { statement } of statements) {
      for (const action of asList(statement.Action).map(String)) expect(action).not.toMatch(/:\*$|^\*$/);
      if (asList(statement.Resource).includes('*')) {
        // X-Ray and ListStreams support no resource-level permissions.
        expect(asList(statement.Action).every((a) => /^xray:|^dynamodb:ListStreams$/.test(String(a)))).toBe(
          true,
        );
      }
    }
    // SQS only on its own two queues: the delivery queue (send, receive, delete) and its dead letters.
    const sqs = statements.filter(({ statement }) =>
      asList(statement.Action).some((a) => String(a).startsWith('sqs:')),
    );
    expect(sqs.length).toBeGreaterThan(0);
    for (const { statement } of sqs) {
      for (const resource of asList(statement.Resource)) {
        expect(JSON.stringify(resource)).toMatch(
          /^\{"Fn::GetAtt":\["(Retries|DeadLetters)[0-9A-F]+","Arn"\]\}$/,
        );
      }
    }
    const deliveryQueueActions = sqs
      .filter(({ statement }) => JSON.stringify(statement.Resource).includes('"Retries'))
      .flatMap(({ statement }) => asList(statement.Action).map(String));
    expect(deliveryQueueActions).toEqual(
      expect.arrayContaining(['sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage']),
    );
    // The network's withdrawal lists a leaving member's ledger entries on GSI1, and nothing else.
    const indexes = JSON.stringify(statements).match(/\/index\/[A-Za-z0-9]+/g) ?? [];
    expect([...new Set(indexes)]).toEqual([`/index/${GSI1.name}`]);
  });

  it('alarms when an endpoint is disabled after failing 72 h, on dead letters, on a backlog of due attempts and on network contribution bursts', () => {
    const alarms = resources(template(), 'AWS::CloudWatch::Alarm');
    expect(alarms.map(([, a]) => a.Properties.MetricName).sort()).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      'NetworkContributionsCapped',
      'WebhookEndpointsDisabled',
    ]);
    for (const [, alarm] of alarms) expect(alarm.Properties.AlarmActions).toHaveLength(1);
    const onQueue = (prefix: RegExp) =>
      alarms.find(([, a]) =>
        prefix.test(JSON.stringify((a.Properties.Dimensions as Json[] | undefined)?.[0]?.Value)),
      )?.[1].Properties;
    expect(onQueue(/"Retries/)).toMatchObject({
      Threshold: DELIVERY_BACKLOG_ALARM,
      EvaluationPeriods: 3,
      Statistic: 'Minimum',
    });
    expect(onQueue(/"DeadLetters/)).toMatchObject({ Threshold: 1 });
    // Any contribution dropped at the daily cap within an hour: the worker's metric, summed.
    expect(
      alarms.find(([, a]) => a.Properties.MetricName === 'NetworkContributionsCapped')?.[1].Properties,
    ).toMatchObject({
      Namespace: 'AbuseDecision',
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('holds no grant on the network secret: it contributes under the keys events computed', () => {
    const statements = policyStatements(template());
    expect(JSON.stringify(statements)).not.toMatch(/secretsmanager/);
    template().hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.not(Match.objectLike({ NETWORK_SECRET_ARN: Match.anyValue() })) },
    });
  });

  it('sends from its bundle only the table actions it is granted', async () => {
    const sent = await actionsSentBy('functions/webhook-worker.ts');
    // Beside the table, it sends one thing: delayed messages to its delivery queue.
    expect(sent.actions).toEqual([...WEBHOOK_WORKER_ACCESS.actions, 'sqs:SendMessage'].sort());
    // It opens webhook secrets to sign; making them is not in its code.
    expect(sent.keyActions).toEqual(['kms:Decrypt']);
    // The network's queue and a leaving member's ledger entries are on GSI1.
    expect(sent.queriesIndex).toBe(true);
  });
});

describe.each(['sandbox', 'production'] as const)('%s dispositions upload worker', (stage) => {
  const template = () => templateOf(environment(stage).uploads);

  it("is invoked by a rule on the jobs' bus for each new upload item with its ids, retried by Lambda as often as the worker tries, with a dead-letter queue that alarms", async () => {
    const { MAX_UPLOAD_ATTEMPTS } = await import('../shared/use-cases/record-upload.ts');
    const { uploads, lake } = environment(stage);
    expect(uploads.dependencies).toEqual(expect.arrayContaining([lake]));
    expect(resources(template(), 'AWS::Lambda::EventSourceMapping')).toEqual([]);
    const [[ruleId, rule], ...otherRules] = resources(template(), 'AWS::Events::Rule') as [
      [string, CfnResource],
    ];
    expect(otherRules).toEqual([]);
    expect(JSON.stringify(rule.Properties.EventBusName)).toContain(logicalId(lake.jobStarts.bus));
    expect(rule.Properties.EventPattern).toEqual({
      source: [JOB_ITEM_EVENT.source],
      'detail-type': [JOB_ITEM_EVENT.detailType],
      detail: { entity: ['dispositionUpload'] },
    });
    const worker = logicalId(uploads.worker.handler);
    const queue = logicalId(uploads.deadLetterQueue);
    const [target, ...otherTargets] = rule.Properties.Targets as Json[];
    expect(otherTargets).toEqual([]);
    expect(target).toMatchObject({
      Arn: { 'Fn::GetAtt': [worker, 'Arn'] },
      DeadLetterConfig: { Arn: { 'Fn::GetAtt': [queue, 'Arn'] } },
      RetryPolicy: {
        MaximumRetryAttempts: JOB_START_RETRY.attempts,
        MaximumEventAgeInSeconds: JOB_START_RETRY.maxEventAge.toSeconds(),
      },
    });
    // What the worker gets for an inserted upload item: the pipe's detail through the rule's input.
    const item = {
      ...uploadKeys.upload('m_1', 'upl_1'),
      ...jobItemAttributes('dispositionUpload', 'upl_1'),
      merchantId: 'm_1',
      uploadId: 'upl_1',
      status: 'recording',
    };
    const { detail } = pipeDetail(only(templateOf(lake), 'AWS::Pipes::Pipe').Properties, insertRecord(item));
    expect(ruleInput(target!, { detail })).toEqual({ merchantId: 'm_1', uploadId: 'upl_1' });
    template().hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [worker, 'Arn'] },
      SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
    });
    // A failed run is Lambda's to retry: enough runs for the worker's own give-up (after
    // MAX_UPLOAD_ATTEMPTS) to mark the job failed, then the dead-letter queue.
    expect(only(template(), 'AWS::Lambda::EventInvokeConfig').Properties).toMatchObject({
      FunctionName: { Ref: worker },
      MaximumRetryAttempts: MAX_UPLOAD_ATTEMPTS,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queue, 'Arn'] } } },
    });
    expect(UPLOAD_RUN_RETRIES).toBe(MAX_UPLOAD_ATTEMPTS);
    const [queueEntry, ...moreQueues] = resources(template(), 'AWS::SQS::Queue');
    expect(moreQueues).toEqual([]);
    expect(queueEntry?.[1].Properties).toMatchObject({ SqsManagedSseEnabled: true });
    const allows = (
      only(template(), 'AWS::SQS::QueuePolicy').Properties.PolicyDocument as { Statement: Json[] }
    ).Statement.filter((s) => s.Effect === 'Allow');
    expect(allows.map((s) => [s.Principal, s.Action])).toEqual([
      [{ Service: 'events.amazonaws.com' }, 'sqs:SendMessage'],
    ]);
    const [alarm, ...moreAlarms] = resources(template(), 'AWS::CloudWatch::Alarm');
    expect(moreAlarms).toEqual([]);
    expect(alarm?.[1].Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible' });
    expect(alarm?.[1].Properties.AlarmActions).toHaveLength(1);
    template().hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 600,
      Runtime: 'nodejs24.x',
      Environment: { Variables: Match.objectLike({ ENVIRONMENT: stage }) },
    });
  });

  it("leaves the table's DynamoDB stream two readers, the webhook and privacy workers", () => {
    const built = environment(stage);
    const readers = Object.values(built).flatMap((stack: Stack) =>
      resources(templateOf(stack), 'AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => /Table[A-Za-z0-9]*StreamArn/.test(JSON.stringify(m.Properties.EventSourceArn)))
        .map(([, m]) => JSON.stringify(m.Properties.FunctionName)),
    );
    expect(readers).toHaveLength(2);
    expect(readers.join()).toContain(logicalId(built.webhooks.worker.handler));
    expect(readers.join()).toContain(logicalId(built.privacy.worker.handler));
  });

  it('grants the worker exactly the table actions its bundle sends', async () => {
    const statements = policyStatements(template());
    const actions = statements.flatMap(({ statement }) => asList(statement.Action).map(String));
    const tableActions = actions.filter(
      (a) => a.startsWith('dynamodb:') && !/Stream|GetRecords|GetShardIterator/.test(a),
    );
    expect([...new Set(tableActions)].sort()).toEqual([...UPLOAD_WORKER_ACCESS.actions].sort());
    expect(JSON.stringify(statements)).not.toContain('/index/');
    const sent = await actionsSentBy('functions/dispositions-upload-worker.ts');
    expect(sent.actions).toEqual([...UPLOAD_WORKER_ACCESS.actions].sort());
    expect(sent.queriesIndex).toBe(false);
  });
});

describe.each(['sandbox', 'production'] as const)('%s history import (lib/import-job.ts)', (stage) => {
  const template = () => templateOf(environment(stage).imports);
  const protect = STAGES[stage].protectData;

  it('keeps history files in a private, encrypted, SSL-only bucket that forgets them, retained in production', () => {
    const [[, bucket], ...others] = resources(template(), 'AWS::S3::Bucket') as [[string, CfnResource]];
    expect(others).toEqual([]);
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      LifecycleConfiguration: {
        Rules: [
          expect.objectContaining({
            ExpirationInDays: 7,
            AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            Status: 'Enabled',
          }),
        ],
      },
    });
    expect(bucket.DeletionPolicy).toBe(protect ? 'Retain' : 'Delete');
    const policy = JSON.stringify(only(template(), 'AWS::S3::BucketPolicy').Properties);
    expect(policy).toContain('"aws:SecureTransport":"false"');
    expect(policy).toContain('"Effect":"Deny"');
    expect(environment(stage).imports.stackName).toBe(`AbuseDecision-${stage}-Import`);
    expect(environment(stage).imports.terminationProtection).toBe(protect);
  });

  it('runs one slice function (15 minutes, 1 GB: the file is streamed) told its bucket and table, invoked by the state machine only', () => {
    const [[, fn], ...others] = resources(template(), 'AWS::Lambda::Function') as [[string, CfnResource]];
    expect(others).toEqual([]);
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: 900,
      MemorySize: 1024,
    });
    const variables = (fn.Properties.Environment as { Variables: Json }).Variables;
    expect(variables).toMatchObject({ ENVIRONMENT: stage, POWERTOOLS_SERVICE_NAME: SERVICE_NAME });
    expect(JSON.stringify(variables.TABLE_NAME)).toContain(`AbuseDecision-${stage}-Data`);
    expect(variables.IMPORT_BUCKET).toEqual({ Ref: logicalId(environment(stage).imports.bucket) });
    expect(resources(template(), 'AWS::Lambda::EventSourceMapping')).toEqual([]);
    expect(resources(template(), 'AWS::Lambda::Permission')).toEqual([]);
    template().hasOutput('ImportStateMachineArn', {});
    template().hasOutput('ImportBucketName', {});
  });

  it('an NDJSON upload to the bucket starts the state machine, which loops slices with retries until done, refused or failed (alarmed)', () => {
    const { imports } = environment(stage);
    const machineId = logicalId(imports.job.stateMachine);
    const bucketId = logicalId(imports.bucket);
    const [, bucket] = resources(template(), 'AWS::S3::Bucket')[0]!;
    // EventBridge notifications by the bucket's own property: no custom resource function.
    expect(bucket.Properties.NotificationConfiguration).toEqual({
      EventBridgeConfiguration: { EventBridgeEnabled: true },
    });
    const rule = only(template(), 'AWS::Events::Rule').Properties;
    expect(rule.EventPattern).toEqual({
      source: ['aws.s3'],
      'detail-type': ['Object Created'],
      detail: { bucket: { name: [{ Ref: bucketId }] }, object: { key: [{ suffix: '.ndjson' }] } },
    });
    const [target] = rule.Targets as Json[];
    expect(target).toMatchObject({
      Arn: { Ref: machineId },
      InputTransformer: { InputPathsMap: { 'detail-object-key': '$.detail.object.key' } },
    });
    // The rule's role may start this state machine and nothing else.
    const ruleRole = (target!.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const ruleActions = statementsOf(template(), policyStatements(template()), ruleRole).map(
      ({ statement }) => [statement.Action, statement.Resource],
    );
    expect(ruleActions).toEqual([['states:StartExecution', { Ref: machineId }]]);

    const [, machine] = resources(template(), 'AWS::StepFunctions::StateMachine')[0]!;
    const definition = JSON.stringify(machine.Properties.DefinitionString);
    for (const part of [
      '\\"ImportSlice\\":{\\"Next\\":\\"DoneYet\\"',
      '\\"Default\\":\\"ImportSlice\\"',
      '\\"ErrorEquals\\":[\\"ImportRefusedError\\",\\"ZodError\\"],\\"MaxAttempts\\":0',
      '\\"ErrorEquals\\":[\\"States.ALL\\"],\\"IntervalSeconds\\":30,\\"MaxAttempts\\":3',
      '\\"ImportRefused\\":{\\"Type\\":\\"Fail\\"',
      '\\"ImportFailed\\":{\\"Type\\":\\"Fail\\"',
      // After 1,000 slices the execution hands the import on to a new one of itself, then ends.
      '{\\"Variable\\":\\"$.run.slices\\",\\"NumericGreaterThanEquals\\":1000,\\"Next\\":\\"NextRun\\"}',
      '\\"ContinueAsNew\\":{\\"Next\\":\\"ContinuedAsNew\\"',
      ':states:startExecution\\"',
    ])
      expect(definition).toContain(part);
    // It may start itself (by its own name) and nothing else; its name is the stack's.
    expect(machine.Properties.StateMachineName).toBe(`AbuseDecision-${stage}-Import-history-import`);
    const machineRole = (machine.Properties.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const starts = statementsOf(template(), policyStatements(template()), machineRole)
      .filter(({ statement }) => asList(statement.Action).some((a) => String(a).startsWith('states:')))
      .map(({ statement }) => [statement.Action, JSON.stringify(statement.Resource)]);
    expect(starts).toEqual([
      [
        'states:StartExecution',
        expect.stringContaining(`:stateMachine:AbuseDecision-${stage}-Import-history-import"`),
      ],
    ]);
    const alarms = resources(template(), 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter((a) => a.MetricName === 'ExecutionsFailed' && JSON.stringify(a.Dimensions).includes(machineId));
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0]!.AlarmActions)).toContain('AlarmTopic');
  });

  it('grants the function the table actions and the one S3 read its bundle sends, nothing more', async () => {
    const { imports } = environment(stage);
    const statements = policyStatements(template());
    const role = logicalId(imports.job.function.role);
    const own = statements.filter(({ owner }) =>
      JSON.stringify(
        resources(template(), 'AWS::IAM::Policy').find(([id]) => id === owner)?.[1].Properties.Roles,
      ).includes(role),
    );
    const actions = own.flatMap(({ statement }) => asList(statement.Action).map(String));
    const granted = [...new Set(actions.filter((a) => /^(dynamodb|s3):/.test(a)))].sort();
    expect(granted).toEqual([...IMPORT_JOB_ACCESS.actions, 's3:GetObject'].sort());
    const s3Read = own.find(({ statement }) => asList(statement.Action).includes('s3:GetObject'))!.statement;
    expect(s3Read.Resource).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalId(imports.bucket), 'Arn'] }, '/*']],
    });
    expect(JSON.stringify(own)).not.toContain('/index/');
    // No whole service and no wildcard (the table key's KMS grants name its few actions).
    for (const action of actions) expect(action).not.toMatch(/^\*$|^[a-z0-9-]+:\*$/);
    const sent = await actionsSentBy(IMPORT_HANDLER_FILE);
    expect(sent.actions).toEqual([...IMPORT_JOB_ACCESS.actions, 's3:GetObject'].sort());
    expect(sent.queriesIndex).toBe(false);
  });
});

describe.each(['sandbox', 'production'] as const)('%s privacy exports', (stage) => {
  it('keeps exports 8 days in a private bucket; the management API may only read its objects, to sign links', () => {
    const { api } = environment(stage);
    templateOf(api).hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 8, Status: 'Enabled' })] },
    });
    const functions = resources(templateOf(api), 'AWS::Lambda::Function').filter(isOurFunction);
    for (const [id, fn] of functions) {
      const variables = (fn.Properties.Environment as { Variables: Json }).Variables;
      expect(JSON.stringify(variables.EXPORTS_BUCKET), id).toContain(logicalId(api.exportsBucket));
    }
    const policies = resources(templateOf(api), 'AWS::IAM::Policy');
    const s3Statements = policies.flatMap(([, policy]) =>
      (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement.filter((statement) =>
        JSON.stringify(statement.Resource).includes(logicalId(api.exportsBucket)),
      ),
    );
    expect(s3Statements.map((statement) => statement.Action)).toEqual(['s3:GetObject']);
  });
});

describe.each(['sandbox', 'production'] as const)('%s privacy worker (lib/privacy-stack.ts)', (stage) => {
  const template = () => templateOf(environment(stage).privacy);

  it('is a stack of its own, woken by the stream only for pending privacy requests, retried, dead-lettered', () => {
    const { privacy, api, data } = environment(stage);
    expect(privacy.stackName).toBe(`AbuseDecision-${stage}-Privacy`);
    expect(privacy.dependencies).toEqual(expect.arrayContaining([data, api]));
    expect(resources(templateOf(api), 'AWS::Lambda::EventSourceMapping')).toEqual([]);
    const [mapping, ...others] = resources(template(), 'AWS::Lambda::EventSourceMapping');
    expect(others).toEqual([]);
    expect(JSON.stringify(mapping?.[1].Properties.EventSourceArn)).toContain('StreamArn');
    expect(mapping?.[1].Properties).toMatchObject({
      FunctionName: { Ref: logicalId(privacy.worker.handler) },
      StartingPosition: 'LATEST',
      BatchSize: 1,
      MaximumRetryAttempts: PRIVACY_STREAM_RETRIES,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(privacy.deadLetterQueue), 'Arn'] } },
      },
    });
    const criteria = mapping?.[1].Properties.FilterCriteria as { Filters: { Pattern: string }[] } | undefined;
    const filters = criteria?.Filters ?? [];
    // Every write to a pending request or a running offboarding (new, a slice's progress, a failed
    // attempt) wakes it, and an erasure just done for its first lake pass; an ended one does not.
    expect(filters.map((filter) => JSON.parse(filter.Pattern))).toEqual([
      { dynamodb: { NewImage: { entity: { S: ['privacyRequest'] }, status: { S: ['pending'] } } } },
      { dynamodb: { NewImage: { entity: { S: ['offboardedMerchant'] }, status: { S: ['running'] } } } },
      {
        dynamodb: {
          NewImage: { entity: { S: ['privacyRequest'] }, lakeErasure: { M: { passes: { N: ['0'] } } } },
        },
      },
    ]);
    const fn = only(template(), 'AWS::Lambda::Function');
    expect(fn.Properties).toMatchObject({ Timeout: 900, Runtime: 'nodejs24.x' });
    // Three slices fit in one run: the one that finishes has the rest of the timeout for its records.
    expect(PRIVACY_SLICE_MS * 3).toBeLessThanOrEqual(Number(fn.Properties.Timeout) * 1000);
    const variables = (fn.Properties.Environment as { Variables: Json }).Variables;
    expect(variables).toMatchObject({ ENVIRONMENT: stage });
    expect(JSON.stringify(variables.EXPORTS_BUCKET)).toContain(logicalId(api.exportsBucket));
    // Offboarding deletes the merchant's digest key: the prefix is named, never read (below).
    expect(variables.DIGEST_KEY_SECRET_PREFIX).toBe(digestKeySecretPrefix(stage));
    expect(variables.NETWORK_SECRET_ARN).toBeUndefined();
    const { lake } = environment(stage);
    expect(variables).toMatchObject({
      LAKE_DATABASE: lake.databaseName,
      LAKE_WORKGROUP: lake.workGroupName,
    });
    expect(JSON.stringify(variables.LAKE_BUCKET)).toContain(logicalId(lake.bucket));
  });

  it('runs the lake passes that are due every 15 minutes: an erasure’s second comes within that of its hour', () => {
    const { privacy } = environment(stage);
    const rule = only(template(), 'AWS::Events::Rule');
    expect(rule.Properties).toMatchObject({
      ScheduleExpression: `rate(${LAKE_PASS_SCHEDULE.toMinutes()} minutes)`,
      State: 'ENABLED',
      Targets: [
        expect.objectContaining({ Arn: { 'Fn::GetAtt': [logicalId(privacy.worker.handler), 'Arn'] } }),
      ],
    });
    expect(LAKE_PASS_SCHEDULE.toMilliseconds()).toBeLessThan(LAKE_RECHECK_MS);
    const permission = only(template(), 'AWS::Lambda::Permission');
    expect(permission.Properties).toMatchObject({ Principal: 'events.amazonaws.com' });
  });

  it('alarms to the API stack’s topic on crashes, dead letters, failed requests, lake passes and offboarding slices', () => {
    const alarms = resources(template(), 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms.map((alarm) => alarm.MetricName).sort()).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'Errors',
      'OffboardingSlicesFailed',
      'PrivacyLakePassesFailed',
      'PrivacyRequestsFailed',
    ]);
    const topic = logicalId(environment(stage).api.monitoring.topic);
    for (const alarm of alarms) {
      expect(alarm).toMatchObject({ Threshold: 1, TreatMissingData: 'notBreaching' });
      expect(JSON.stringify(alarm.AlarmActions)).toContain(topic);
    }
    const failed = alarms.find((alarm) => alarm.MetricName === 'PrivacyRequestsFailed');
    expect(failed).toMatchObject({
      Namespace: 'AbuseDecision',
      Dimensions: [{ Name: 'service', Value: SERVICE_NAME }],
    });
  });

  it("grants the worker the table actions its bundle sends, writes under <merchant>/privacy/, deletes offboarded merchants' objects and digest keys, rewrites lake files only", async () => {
    const { privacy, api, lake, imports } = environment(stage);
    const statements = statementsOf(template(), policyStatements(template()), privacy.worker.role).map(
      ({ statement }) => statement,
    );
    const tableStatement = statements.find((statement) =>
      asList(statement.Action).includes('dynamodb:BatchGetItem'),
    );
    expect(asList(tableStatement?.Action).sort()).toEqual([...PRIVACY_WORKER_ACCESS.actions].sort());
    expect(JSON.stringify(statements)).toContain(`/index/${GSI1.name}`);
    const s3 = statements.filter((statement) =>
      asList(statement.Action).some((a) => String(a).startsWith('s3:')),
    );
    const lakeObjects = (prefix: string) => ({
      'Fn::Join': ['', [{ 'Fn::ImportValue': lake.forPrivacyWorker.arnExportName }, `/${prefix}*`]],
    });
    const exportsArn = { 'Fn::ImportValue': api.exportsForWorker.arnExportName };
    const importsArn = { 'Fn::ImportValue': imports.forPrivacyWorker.arnExportName };
    // Offboarding: the merchant's objects in the exports and imports buckets, listed and deleted, not read.
    const buckets = [exportsArn, importsArn];
    const offboardingDeletes = [
      expect.objectContaining({ Action: 's3:ListBucket', Resource: buckets }),
      expect.objectContaining({
        Action: 's3:DeleteObject',
        Resource: buckets.map((bucket) => ({ 'Fn::Join': ['', [bucket, '/*']] })),
      }),
    ];
    expect(s3).toEqual([
      ...offboardingDeletes,
      expect.objectContaining({
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [exportsArn, '/*/privacy/*']] },
      }),
      expect.objectContaining({
        Action: ['s3:GetBucketLocation', 's3:ListBucket'],
        Resource: [
          { 'Fn::ImportValue': lake.forPrivacyWorker.arnExportName },
          { 'Fn::ImportValue': lake.forPrivacyWorker.resultsArnExportName },
        ],
      }),
      // The lake's tables and the erasure's staging prefix: nothing else of the lake bucket.
      expect.objectContaining({
        Action: ['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject'],
        Resource: [ERASURE_STAGING_PREFIX, ...LAKE_TABLE_NAMES.map((table) => `${table}/`)]
          .sort()
          .map(lakeObjects),
      }),
      expect.objectContaining({
        Action: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'],
        Resource: {
          'Fn::Join': ['', [{ 'Fn::ImportValue': lake.forPrivacyWorker.resultsArnExportName }, '/athena/*']],
        },
      }),
    ]);
    const athena = statements.find((statement) =>
      asList(statement.Action).includes('athena:StartQueryExecution'),
    );
    expect(JSON.stringify(athena?.Resource)).toContain(`workgroup/${lake.workGroupName}`);
    const actions = statements.flatMap((statement) => asList(statement.Action).map(String));
    expect(actions.filter((a) => a.startsWith('secretsmanager:'))).toEqual(['secretsmanager:DeleteSecret']);
    const secrets = statements.find((statement) => statement.Action === 'secretsmanager:DeleteSecret');
    expect(JSON.stringify(secrets?.Resource)).toContain(`:secret:${digestKeySecretPrefix(stage)}*`);
    // KMS on the table's own key only, where the table has one (production); nothing else is opened.
    const kms = statements.filter((statement) =>
      asList(statement.Action).some((a) => String(a).startsWith('kms:')),
    );
    expect(kms.length).toBe(STAGES[stage].tableEncryption === 'customer-managed' ? 1 : 0);
    for (const statement of kms) expect(JSON.stringify(statement.Resource)).toContain('DecisionTableKey');

    const sent = await actionsSentBy(PRIVACY_WORKER_HANDLER_FILE);
    const lakeErasure = [
      'athena:GetQueryExecution',
      'athena:GetQueryResults',
      'athena:StartQueryExecution',
      's3:DeleteObject',
      's3:ListBucket',
    ];
    expect(sent.actions).toEqual([...PRIVACY_WORKER_ACCESS.actions, 's3:PutObject', ...lakeErasure].sort());
    expect(sent.keyActions).toEqual([]);
    expect(sent.queriesIndex).toBe(true);
  });
});

describe('table access (lib/table-access.ts)', () => {
  it('grants each function exactly the DynamoDB actions its bundled code sends', async () => {
    const handlers: [keyof typeof TABLE_ACCESS, string][] = [
      ...new Map(
        ROUTES.map((route): [keyof typeof TABLE_ACCESS, string] => [
          route.functionName as keyof typeof TABLE_ACCESS,
          route.handlerFile,
        ]),
      ),
      ['fallback', FALLBACK_HANDLER_FILE],
      ...PUBLIC_ROUTES.map((route): [keyof typeof TABLE_ACCESS, string] => [route.name, route.handlerFile]),
      ['training', LEARNING_HANDLER_FILES.fit],
      ['learningItems', LEARNING_HANDLER_FILES.listItems],
    ];
    for (const [name, handlerFile] of handlers) {
      const sent = await actionsSentBy(handlerFile);
      // The learning steps also read and write their work in S3, granted apart (lib/learning-stack.ts).
      const onTable = sent.actions.filter((action) => !action.startsWith('s3:'));
      expect(onTable, `${name} (${handlerFile})`).toEqual([...TABLE_ACCESS[name].actions].sort());
      if (name === 'console') expect(sent.actions).toContain('s3:GetObject');
      expect(sent.queriesIndex, name).toBe(TABLE_ACCESS[name].queriedIndexes.length > 0);
      // Only the console makes webhook secrets (sealing them); no API function opens one.
      expect(sent.keyActions, name).toEqual(name === 'console' ? ['kms:GenerateDataKey'] : []);
    }
  });
});

describe.each(['sandbox', 'production'] as const)('webhook signing secrets key (%s)', (stage) => {
  it('is the environment’s own rotating key; only the console may seal with it, only the webhook worker open', () => {
    const built = environment(stage);
    templateOf(built.data).hasResourceProperties('AWS::KMS::Key', {
      Description: `Seals webhook signing secrets (${stage})`,
      EnableKeyRotation: true,
    });
    const onSecretsKey = (stack: Stack) =>
      policyStatements(templateOf(stack))
        .filter(({ statement }) => JSON.stringify(statement.Resource).includes('WebhookSecretsKey'))
        .map(({ owner, statement }) => ({
          owner: owner.replace(/[A-F0-9]{8}$/, ''),
          actions: statement.Action,
        }));
    expect(onSecretsKey(built.api)).toEqual([
      { owner: 'ConsoleFunctionRoleDefaultPolicy', actions: 'kms:GenerateDataKey' },
    ]);
    expect(onSecretsKey(built.webhooks)).toEqual([
      { owner: 'WorkerFunctionRoleDefaultPolicy', actions: 'kms:Decrypt' },
    ]);
    for (const stack of [built.data, built.lake, built.uploads, built.imports, built.privacy]) {
      expect(onSecretsKey(stack), stack.stackName).toEqual([]);
    }
    // The functions that hold a grant are told the key; nothing else is.
    const withKey = (stack: Stack) =>
      resources(templateOf(stack), 'AWS::Lambda::Function')
        .filter(([, fn]) =>
          JSON.stringify(fn.Properties.Environment ?? {}).includes('WEBHOOK_SECRETS_KEY_ARN'),
        )
        .map(([id]) => id.replace(/[A-F0-9]{8}$/, ''));
    expect(withKey(built.api)).toEqual(['ConsoleFunction']);
    expect(withKey(built.webhooks)).toEqual(['WorkerFunction']);
  });
});

describe('function bundles', () => {
  it('are ESM with the createRequire banner, bundle the AWS SDK and ship source maps', () => {
    const sizes: Record<string, string> = {};
    const { api } = environment('sandbox');
    for (const [name, fn] of api.functions) {
      const cfn = templateOf(api).toJSON().Resources[logicalId(fn.handler)] as { Properties: { Code: Json } };
      const s3Key = String(cfn.Properties.Code.S3Key);
      const dir = join(outdir, `asset.${s3Key.replace(/\.zip$/, '')}`);
      expect(readdirSync(dir).sort(), name).toEqual([
        CEL_CHUNK_FILE,
        `${CEL_CHUNK_FILE}.map`,
        'index.mjs',
        'index.mjs.map',
      ]);
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(
        code.startsWith(
          "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        ),
      ).toBe(true);
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.mjs\.map\s*$/);
      expect(code, name).not.toMatch(/from\s*"@aws-sdk\//);
      // Every function but the OpenAPI document's talks to the table.
      if (name === 'openapi') expect(code, name).not.toContain('DynamoDBClient');
      else expect(code, name).toContain('DynamoDBClient');
      sizes[name] = `${(statSync(join(dir, 'index.mjs')).size / 1024).toFixed(1)} KiB`;
    }
    console.info('minified bundle sizes (index.mjs):', sizes);
  });

  it('exist for every route (a missing handler fails synth rather than deploying a partial API)', () => {
    for (const route of ROUTES)
      expect(existsSync(join(REPO_ROOT, route.handlerFile)), route.handlerFile).toBe(true);
  });
});

describe('optional settings', () => {
  it('subscribes the alarm e-mail and maps a custom domain with its DNS record when configured, closing the execute-api endpoint', () => {
    const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'cdk-infra-test-')), context: cdkContext });
    const built = buildAbuseDecisionApp(app, {
      // Only the fallback function: these settings do not depend on the routes, and bundling is slow.
      routes: [],
      stages: [
        {
          ...STAGES.sandbox,
          alarmEmail: 'alarms@example.com',
          customDomain: {
            domainName: 'api.sandbox.example.com',
            certificateArn:
              'arn:aws:acm:eu-west-1:111111111111:certificate/00000000-0000-0000-0000-000000000000',
            hostedZone: { hostedZoneId: 'Z0000000000000000000', zoneName: 'example.com' },
          },
        },
      ],
    });
    const api = built.sandbox?.api;
    if (!api) throw new Error('no sandbox stacks');
    const template = Template.fromJSON(app.synth().getStackArtifact(api.artifactId).template as Json);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'alarms@example.com',
    });
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.sandbox.example.com',
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 1);
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'api.sandbox.example.com.',
      Type: 'A',
    });
    template.hasOutput('ApiUrl', { Value: 'https://api.sandbox.example.com/' });
    // The domain's TLS policy cannot be skipped: the default endpoint is off, and the console's
    // CloudFront sends /v1/* to the domain instead.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true });
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        Origins: Match.arrayWith([
          Match.objectLike({
            DomainName: 'api.sandbox.example.com',
            CustomOriginConfig: Match.objectLike({ OriginProtocolPolicy: 'https-only' }),
          }),
        ]),
      }),
    });
  });

  it('passes cdk-nag where the account and region are known, as on a deploy: acknowledgements name them, not their placeholders', () => {
    const app = new App({
      outdir: mkdtempSync(join(tmpdir(), 'cdk-infra-test-')),
      // Bundling skipped: the findings are the policies', not the code's.
      context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] },
    });
    buildAbuseDecisionApp(app, {
      stages: [{ ...STAGES.production, account: '111111111111', region: 'eu-west-1' }],
    });
    // An unacknowledged finding throws here, as in the suite's own synthesis.
    expect(() => app.synth()).not.toThrow();
  });

  it('keeps the execute-api endpoint open without a custom domain (merchants call it)', () => {
    const [[, api] = []] = resources(templateOf(environment('sandbox').api), 'AWS::ApiGateway::RestApi');
    expect(api?.Properties).toBeDefined();
    expect(api?.Properties.DisableExecuteApiEndpoint).not.toBe(true);
  });

  it('provisions the table and every index with target-tracking auto scaling when the environment asks', () => {
    const app = new App({ outdir: mkdtempSync(join(tmpdir(), 'cdk-infra-test-')), context: cdkContext });
    const table = { read: { min: 50, max: 2_000 }, write: { min: 500, max: 30_000 } };
    const indexes = { read: { min: 5, max: 500 }, write: { min: 40, max: 2_500 } };
    const built = buildAbuseDecisionApp(app, {
      routes: [],
      stages: [
        {
          ...STAGES.production,
          tableCapacity: { mode: 'provisioned', targetUtilizationPercent: 70, table, indexes },
        },
      ],
    });
    const data = built.production?.data;
    if (!data) throw new Error('no production stacks');
    const template = Template.fromJSON(app.synth().getStackArtifact(data.artifactId).template as Json);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      // CloudFormation's default billing mode is PROVISIONED; CDK leaves it out.
      BillingMode: Match.absent(),
      ProvisionedThroughput: { ReadCapacityUnits: 50, WriteCapacityUnits: 500 },
      GlobalSecondaryIndexes: GLOBAL_INDEXES.map((index) => ({
        IndexName: index.name,
        ProvisionedThroughput: { ReadCapacityUnits: 5, WriteCapacityUnits: 40 },
      })).map((index) => Match.objectLike(index)),
    });
    const targets = resources(template, 'AWS::ApplicationAutoScaling::ScalableTarget').map(
      ([, r]) => r.Properties,
    );
    const range = (r: { min: number; max: number }) => [r.min, r.max];
    expect(targets.map((t) => [t.ScalableDimension, t.ResourceId, t.MinCapacity, t.MaxCapacity])).toEqual(
      expect.arrayContaining([
        ['dynamodb:table:ReadCapacityUnits', expect.anything(), ...range(table.read)],
        ['dynamodb:table:WriteCapacityUnits', expect.anything(), ...range(table.write)],
        ...GLOBAL_INDEXES.flatMap(() => [
          ['dynamodb:index:ReadCapacityUnits', expect.anything(), ...range(indexes.read)],
          ['dynamodb:index:WriteCapacityUnits', expect.anything(), ...range(indexes.write)],
        ]),
      ]),
    );
    expect(targets).toHaveLength(2 + 2 * GLOBAL_INDEXES.length);
    const policies = resources(template, 'AWS::ApplicationAutoScaling::ScalingPolicy');
    expect(policies).toHaveLength(targets.length);
    for (const [, policy] of policies) {
      expect(policy.Properties.PolicyType).toBe('TargetTrackingScaling');
      expect(
        (policy.Properties.TargetTrackingScalingPolicyConfiguration as { TargetValue: number }).TargetValue,
      ).toBe(70);
    }
  });
});

describe.each(['sandbox', 'production'] as const)('%s learning (lib/learning-stack.ts)', (stage) => {
  const roleStatements = (template: Template, roleId: string) =>
    policyStatements(template).filter(({ owner }) =>
      JSON.stringify(
        resources(template, 'AWS::IAM::Policy').find(([id]) => id === owner)?.[1].Properties.Roles,
      ).includes(roleId),
    );

  it('runs one state machine nightly from EventBridge Scheduler, whose role may only start it', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const [machineId, machine] = resources(template, 'AWS::StepFunctions::StateMachine')[0]!;
    const definition = JSON.stringify(machine.Properties.DefinitionString);
    for (const part of [
      'DISTRIBUTED',
      'ToleratedFailurePercentage',
      'arn:',
      'states:::s3:getObject',
      'ItemFailed',
    ])
      expect(definition).toContain(part);
    const schedule = only(template, 'AWS::Scheduler::Schedule').Properties;
    expect(schedule).toMatchObject({
      ScheduleExpression: 'cron(0 3 * * ? *)',
      Target: { Arn: { Ref: machineId }, Input: '{}' },
    });
    const scheduleRole = ((schedule.Target as Json).RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const statements = roleStatements(template, scheduleRole);
    expect(statements.map(({ statement }) => statement.Action)).toEqual(['states:StartExecution']);
    expect(
      Object.keys(template.toJSON().Outputs ?? {}).some((o) => o.includes('LearningStateMachineArn')),
    ).toBe(true);
  });

  it('grants each step only what it does: items and fit the table, the training set Athena on its workgroup', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const functions = lake.learning.functions;
    const tableActions = (roleId: string) =>
      roleStatements(template, roleId)
        .filter(({ statement }) => asList(statement.Action).some((a) => String(a).startsWith('dynamodb:')))
        .flatMap(({ statement }) => asList(statement.Action).map(String));
    expect(new Set(tableActions(logicalId(functions.listItems.role)))).toEqual(
      new Set(TABLE_ACCESS.learningItems.actions),
    );
    expect(new Set(tableActions(logicalId(functions.fit.role)))).toEqual(
      new Set(TABLE_ACCESS.training.actions),
    );
    expect(tableActions(logicalId(functions.trainingSet.role))).toEqual([]);
    expect(tableActions(logicalId(functions.summarize.role))).toEqual([]);
    const athena = roleStatements(template, logicalId(functions.trainingSet.role)).filter(({ statement }) =>
      asList(statement.Action).some((a) => String(a).startsWith('athena:')),
    );
    expect(athena).toHaveLength(1);
    expect(JSON.stringify(athena[0]!.statement.Resource)).toContain(`workgroup/abuse-decision-${stage}-lake`);
    // The lake tables its queries read, by name: decided events and feedback, never list changes.
    const setGrants = roleStatements(template, logicalId(functions.trainingSet.role)).map(
      ({ statement }) => statement,
    );
    const glue = JSON.stringify(setGrants.filter((s) => asList(s.Action).includes('glue:GetTable')));
    expect(glue).toContain(`table/abuse_decision_${stage}_lake/decided_events`);
    expect(glue).toContain(`table/abuse_decision_${stage}_lake/feedback`);
    expect(glue).not.toContain('list_changes');
    const lakeBucket = logicalId(lake.bucket);
    const lakeReads = setGrants
      .filter((s) => asList(s.Action).includes('s3:GetObject'))
      .flatMap((s) => asList(s.Resource))
      .filter((r) => JSON.stringify(r).includes(lakeBucket))
      .map((r) => ((r as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1] as unknown[]).at(-1));
    expect(lakeReads).toEqual(['/decided_events/*', '/feedback/*']);
    for (const { statement } of policyStatements(template))
      expect(asList(statement.Action)).not.toContain('*');
    const fit = resources(template, 'AWS::Lambda::Function').find(
      ([id]) => id === logicalId(functions.fit.handler),
    )!;
    expect(fit[1].Properties).toMatchObject({ MemorySize: 3008, Timeout: 900 });
  });

  it('alarms on a failed item and on a failed run', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const machine = logicalId(lake.learning.stateMachine);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter(
        (a) =>
          a.MetricName === 'LearningItemsFailed' ||
          (a.MetricName === 'ExecutionsFailed' && JSON.stringify(a.Dimensions).includes(machine)),
      );
    expect(alarms.map((a) => a.MetricName).sort()).toEqual(['ExecutionsFailed', 'LearningItemsFailed']);
    for (const alarm of alarms) expect(JSON.stringify(alarm.AlarmActions)).toContain('AlarmTopic');
  });
});

/** The rule on the jobs' bus that starts one state machine, and its target. */
function ruleStarting(template: Template, machine: string) {
  const rules = resources(template, 'AWS::Events::Rule').filter(([, rule]) =>
    (rule.Properties.Targets as Json[]).some((t) => isDeepStrictEqual(t.Arn, { Ref: machine })),
  );
  expect(rules).toHaveLength(1);
  const rule = rules[0]![1].Properties;
  const targets = rule.Targets as Json[];
  expect(targets).toHaveLength(1);
  return { rule, target: targets[0]! };
}

/** The actions a role is granted, each with its resources. */
function grantsOfRole(template: Template, roleId: string) {
  return statementsOf(template, policyStatements(template), roleId).map(({ statement }) => ({
    actions: asList(statement.Action).map(String),
    resources: JSON.stringify(statement.Resource),
  }));
}

/** The value at a JSON path of the dotted kind EventBridge reads (`$.a.b`); a missing one fails the test. */
function valueAt(json: Json, path: string): unknown {
  const value = path
    .replace(/^\$\./, '')
    .split('.')
    .reduce<unknown>((at, key) => (at as Json | undefined)?.[key], json);
  expect(value, `no value at ${path}`).toBeDefined();
  return value;
}

/**
 * The input a rule's target gives the state machine for an event: its input transformer's template
 * with each variable replaced by the value at its path, as EventBridge fills an unquoted one.
 */
function ruleInput(target: Json, event: Json): Json {
  const { InputPathsMap, InputTemplate } = target.InputTransformer as {
    InputPathsMap: Record<string, string>;
    InputTemplate: string;
  };
  return JSON.parse(
    InputTemplate.replace(/<([^>]+)>/g, (_, name: string) =>
      JSON.stringify(valueAt(event, InputPathsMap[name]!)),
    ),
  ) as Json;
}

/**
 * The detail the jobs' pipe puts on the bus for a change record: its input template with each
 * `<$.path>` replaced by the value there, a quoted one by the string's text, an unquoted one by
 * the JSON of a list or object, as the pipe fills them.
 */
function pipeDetail(pipe: Json, record: Json): { detail: Json; bytes: number } {
  const template = (pipe.TargetParameters as { InputTemplate: string }).InputTemplate;
  const text = template
    .replace(/"<(\$[^>]+)>"/g, (_, path: string) => JSON.stringify(String(valueAt(record, path))))
    .replace(/<(\$[^>]+)>/g, (_, path: string) => JSON.stringify(valueAt(record, path)));
  return { detail: JSON.parse(text) as Json, bytes: Buffer.byteLength(text) };
}

/** The Kinesis record of an inserted item, as Kinesis Data Streams for DynamoDB writes it (`data` parsed). */
const insertRecord = (item: Record<string, unknown>): Json => ({
  data: {
    eventName: 'INSERT',
    dynamodb: { Keys: marshall(keyOfItem(item)), NewImage: marshall(item, { removeUndefinedValues: true }) },
  },
});

/** An event's detail stays this small whatever the item: ids and keys only, far under the 256 KB an event holds. */
const JOB_DETAIL_MAX_BYTES = 1024;

/**
 * Asserts `machine` is started by one rule on the jobs' bus, for inserted `entity` items, and
 * answers the input it gets when `item` is inserted: the pipe's detail for its change record (small
 * whatever the item), through the rule's input transformer.
 */
function expectStartedByRule(
  stage: StageName,
  machine: string,
  entity: string,
  item: Record<string, unknown>,
): Json {
  const { lake } = environment(stage);
  const template = templateOf(lake);
  const { rule, target } = ruleStarting(template, machine);
  expect(rule.EventBusName).toEqual({ Ref: logicalId(lake.jobStarts.bus) });
  expect(rule.EventPattern).toEqual({
    source: [JOB_ITEM_EVENT.source],
    'detail-type': [JOB_ITEM_EVENT.detailType],
    detail: { entity: [entity] },
  });
  // A start that spends its retries is kept, not lost.
  expect(target).toMatchObject({
    DeadLetterConfig: { Arn: { 'Fn::GetAtt': [logicalId(lake.jobStarts.deadLetterQueue), 'Arn'] } },
    RetryPolicy: {
      MaximumRetryAttempts: JOB_START_RETRY.attempts,
      MaximumEventAgeInSeconds: JOB_START_RETRY.maxEventAge.toSeconds(),
    },
  });
  const roleId = (target.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
  expect(grantsOfRole(template, roleId)).toEqual([
    { actions: ['states:StartExecution'], resources: JSON.stringify({ Ref: machine }) },
  ]);
  const { detail, bytes } = pipeDetail(only(template, 'AWS::Pipes::Pipe').Properties, insertRecord(item));
  expect(bytes).toBeLessThan(JOB_DETAIL_MAX_BYTES);
  expect(detail.entity).toBe(entity);
  return ruleInput(target, { detail });
}

describe.each(['sandbox', 'production'] as const)('%s job starts (lib/job-starts.ts)', (stage) => {
  it("reads the table's stream by one pipe, inserted job items only, onto the jobs' bus: a rule per job", () => {
    const { lake, data } = environment(stage);
    const template = templateOf(lake);
    const pipe = only(template, 'AWS::Pipes::Pipe').Properties;
    expect(JSON.stringify(pipe.Source)).toContain(logicalId(data.changes));
    const busId = logicalId(lake.jobStarts.bus);
    expect(pipe.Target).toEqual({ 'Fn::GetAtt': [busId, 'Arn'] });
    const filters = (pipe.SourceParameters as { FilterCriteria: { Filters: { Pattern: string }[] } })
      .FilterCriteria.Filters;
    expect(filters.map((f) => JSON.parse(f.Pattern))).toEqual([
      {
        data: {
          eventName: ['INSERT'],
          dynamodb: { NewImage: { entity: { S: ['lakeExport', 'backtest', 'dispositionUpload'] } } },
        },
      },
    ]);
    expect(pipe.TargetParameters).toMatchObject({
      EventBridgeEventBusParameters: { Source: JOB_ITEM_EVENT.source, DetailType: JOB_ITEM_EVENT.detailType },
    });
    // The detail: what identifies the job and its keys, never the item (whose size is the item's).
    const { detail } = pipeDetail(
      pipe,
      insertRecord({
        ...keys.merchantProfile('m_1'),
        ...jobItemAttributes('backtest', 'bt_1'),
        merchantId: 'm_1',
      }),
    );
    expect(detail).toEqual({
      entity: 'backtest',
      merchantId: 'm_1',
      jobId: 'bt_1',
      keys: { PK: { S: 'MERCHANT#m_1' }, SK: { S: 'PROFILE' } },
    });
    // The stream's polling readers: three Firehose delivery streams and this pipe.
    expect(resources(template, 'AWS::KinesisFirehose::DeliveryStream')).toHaveLength(3);
    expect(only(template, 'AWS::Events::EventBus').Properties.Name).toBe(`abuse-decision-${stage}-jobs`);
    const rules = resources(template, 'AWS::Events::Rule').filter(([, r]) =>
      isDeepStrictEqual(r.Properties.EventBusName, { Ref: busId }),
    );
    expect(rules).toHaveLength(2);
    expect(resources(template, 'AWS::Events::Rule')).toHaveLength(2);
  });

  it("lets the pipe read the stream and put events on the jobs' bus only", () => {
    const { lake, data } = environment(stage);
    const template = templateOf(lake);
    const pipe = only(template, 'AWS::Pipes::Pipe').Properties;
    const roleId = (pipe.RoleArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
    const grants = grantsOfRole(template, roleId);
    expect(grants.map((g) => g.actions.every((a) => a.startsWith('kinesis:')))).toEqual([true, false]);
    expect(grants[0]!.resources).toContain(logicalId(data.changes));
    expect(grants[1]).toEqual({
      actions: ['events:PutEvents'],
      resources: JSON.stringify({ 'Fn::GetAtt': [logicalId(lake.jobStarts.bus), 'Arn'] }),
    });
  });

  it('alarms on a start given up to the dead-letter queue and on a failed put on the bus', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const queue = logicalId(lake.jobStarts.deadLetterQueue);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
    const deadLetters = alarms.filter(
      (a) =>
        a.MetricName === 'ApproximateNumberOfMessagesVisible' && JSON.stringify(a.Dimensions).includes(queue),
    );
    const putFailed = alarms.filter(
      (a) =>
        a.Namespace === 'AWS/EventBridge/Pipes' &&
        a.MetricName === 'TargetStageFailed' &&
        JSON.stringify(a.Dimensions).includes(`abuse-decision-${stage}-job-starts`),
    );
    for (const found of [deadLetters, putFailed]) {
      expect(found).toHaveLength(1);
      expect(JSON.stringify(found[0]!.AlarmActions)).toContain('AlarmTopic');
    }
    // Only EventBridge, on behalf of the jobs' rules, may send to the dead-letter queue.
    const [[, policy]] = resources(template, 'AWS::SQS::QueuePolicy').filter(([, p]) =>
      isDeepStrictEqual(p.Properties.Queues, [{ Ref: queue }]),
    ) as [[string, CfnResource]];
    const allows = (policy.Properties.PolicyDocument as { Statement: Json[] }).Statement.filter(
      (s) => s.Effect === 'Allow',
    );
    expect(allows.map((s) => [s.Principal, s.Action])).toEqual([
      [{ Service: 'events.amazonaws.com' }, 'sqs:SendMessage'],
      [{ Service: 'events.amazonaws.com' }, 'sqs:SendMessage'],
    ]);
  });
});

describe.each(['sandbox', 'production'] as const)('%s bulk exports (lib/lake-export-job.ts)', (stage) => {
  const statementsOfRole = (role: IConstruct) => {
    const template = templateOf(environment(stage).lake);
    return statementsOf(template, policyStatements(template), role).map(({ statement }) => statement);
  };
  /** The export state machine's definition as the template holds it (JSON text, quoted). */
  const exportDefinition = () => {
    const { lake } = environment(stage);
    const [, machine] = resources(templateOf(lake), 'AWS::StepFunctions::StateMachine').find(
      ([id]) => id === logicalId(lake.exports.stateMachine),
    )!;
    return JSON.stringify(machine.Properties.DefinitionString);
  };

  it("starts the export state machine by a rule on the jobs' bus, with the export's merchant, id and keys", () => {
    const { lake } = environment(stage);
    const item = {
      ...lakeExportKeys.export('m_1', 'exp_1'),
      ...jobItemAttributes('lakeExport', 'exp_1'),
      merchantId: 'm_1',
      exportId: 'exp_1',
      kinds: ['order', 'dispute'],
      status: 'pending',
    };
    expect(expectStartedByRule(stage, logicalId(lake.exports.stateMachine), 'lakeExport', item)).toEqual({
      merchantId: 'm_1',
      exportId: 'exp_1',
      keys: { PK: { S: 'M#m_1#EXPORT#exp_1' }, SK: { S: 'EXPORT' } },
    });
  });

  it('reads the kinds from the export item by its keys, and the machine may read export items only', () => {
    const { lake } = environment(stage);
    const definition = exportDefinition();
    expect(definition).toContain('\\"StartAt\\":\\"ReadKinds\\"');
    expect(definition).toContain(':states:::dynamodb:getItem');
    expect(definition).toContain('\\"Key.$\\":\\"$.keys\\"');
    expect(tableGrantsOf(statementsOfRole(lake.exports.stateMachine.role))).toEqual([
      {
        actions: ['dynamodb:GetItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#EXPORT#*'] } },
      },
    ]);
  });

  it('runs each kind as a retried step, records the outcome, and fails (alarmed) once retries are spent', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const definition = exportDefinition();
    for (const state of ['EachKind', 'ExportKind', 'RecordDone', 'RecordFailed', 'ExportFailed'])
      expect(definition).toContain(state);
    expect(definition).toContain('\\"MaxAttempts\\":3');
    const alarms = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter(
        (a) =>
          a.MetricName === 'ExecutionsFailed' &&
          JSON.stringify(a.Dimensions).includes(logicalId(lake.exports.stateMachine)),
      );
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0]!.AlarmActions)).toContain('AlarmTopic');
  });

  it('grants each step only what it does: its export item, the workgroup, the lake tables read, its prefix written', () => {
    const { lake } = environment(stage);
    const { exportKind, outcome } = lake.exports.functions;
    const kind = statementsOfRole(exportKind.role);
    expect(tableGrantsOf(kind)).toEqual([
      {
        actions: ['dynamodb:GetItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#EXPORT#*'] } },
      },
    ]);
    expect(tableGrantsOf(statementsOfRole(outcome.role))).toEqual([
      {
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#EXPORT#*'] } },
      },
      {
        actions: ['dynamodb:PutItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#AUDIT'] } },
      },
    ]);
    const athena = kind.filter((s) => asList(s.Action).some((a) => String(a).startsWith('athena:')));
    expect(athena).toHaveLength(1);
    expect(JSON.stringify(athena[0]!.Resource)).toContain(`workgroup/abuse-decision-${stage}-lake`);
    const writes = kind.filter((s) => asList(s.Action).includes('s3:PutObject'));
    expect(writes.map((s) => JSON.stringify(s.Resource))).toEqual([
      expect.stringContaining('/athena/*'),
      expect.stringContaining(`AbuseDecision-${stage}-Api:ExportsBucketArn`),
    ]);
    expect(JSON.stringify(writes[1]!.Resource)).toContain('/*/exports/*');
    const listsExports = kind.filter(
      (s) =>
        asList(s.Action).includes('s3:ListBucket') && JSON.stringify(s.Resource).includes('ExportsBucketArn'),
    );
    expect(listsExports.map((s) => s.Condition)).toEqual([{ StringLike: { 's3:prefix': ['*/exports/*'] } }]);
    const lakeReads = kind.filter(
      (s) => asList(s.Action).includes('s3:GetObject') && JSON.stringify(s.Resource).includes('Lake'),
    );
    expect(JSON.stringify(lakeReads)).toContain('/decided_events/*');
    expect(JSON.stringify(lakeReads)).toContain('/feedback/*');
    expect(JSON.stringify(lakeReads)).not.toContain('list_changes');
    // The outcome touches no bucket and no query engine.
    expect(
      statementsOfRole(outcome.role)
        .flatMap((s) => asList(s.Action).map(String))
        .filter((a) => /^(s3|athena|glue):/.test(a)),
    ).toEqual([]);
  });
});

describe.each(['sandbox', 'production'] as const)('%s overview feed (lib/overview-feed.ts)', (stage) => {
  it("reads the table's Kinesis stream on a consumer of its own, inserted decided events only, one shard's batch at a time", () => {
    const { lake, data } = environment(stage);
    const template = templateOf(lake);
    const consumer = only(template, 'AWS::Kinesis::StreamConsumer').Properties;
    expect(JSON.stringify(consumer.StreamARN)).toContain(logicalId(data.changes));
    const [mapping, ...others] = resources(template, 'AWS::Lambda::EventSourceMapping').filter(([, m]) =>
      JSON.stringify(m.Properties.FunctionName).includes(logicalId(lake.overviewFeed.feed.handler)),
    );
    expect(others).toEqual([]);
    expect(mapping?.[1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [expect.stringMatching(/Consumer/), 'ConsumerARN'] },
      StartingPosition: 'LATEST',
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: OVERVIEW_FEED_RETRIES,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [expect.stringMatching(/DeadLetters/), 'Arn'] } },
      },
    });
    const criteria = mapping?.[1].Properties.FilterCriteria as { Filters: { Pattern: string }[] } | undefined;
    expect((criteria?.Filters ?? []).map((f) => JSON.parse(f.Pattern))).toEqual([
      {
        data: {
          eventName: ['INSERT'],
          dynamodb: { NewImage: { entity: { S: [...CONSOLE_EVENT_TYPES] } } },
        },
      },
    ]);
  });

  it('may update and read overview items only, exactly what its bundle sends, and read its consumer', async () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const statements = statementsOf(template, policyStatements(template), lake.overviewFeed.feed.role).map(
      ({ statement }) => statement,
    );
    expect(tableGrantsOf(statements)).toEqual([
      {
        actions: [...OVERVIEW_FEED_ACCESS.actions],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#OVERVIEW#*'] } },
      },
    ]);
    const sent = await actionsSentBy('functions/overview-feed.ts');
    expect(sent.actions).toEqual([...OVERVIEW_FEED_ACCESS.actions].sort());
    expect(sent.queriesIndex).toBe(false);
    const actions = statements.flatMap((s) => asList(s.Action).map(String));
    expect(actions).toContain('kinesis:SubscribeToShard');
    expect(actions.filter((a) => !/^(dynamodb|kinesis|xray|logs|sqs|kms):/.test(a))).toEqual([]);
    // Its queue only to give a batch up to, the table's key (production's own) only to read it with.
    for (const statement of statements.filter((s) => /"(sqs|kms):/.test(JSON.stringify(s.Action))))
      expect(JSON.stringify(statement.Resource)).toMatch(/OverviewDeadLetters|DecisionTableKey/);
  });

  it('alarms when it falls behind the stream and when it gives a batch up', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const alarms = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter(
        (a) =>
          JSON.stringify(a).includes(logicalId(lake.overviewFeed.feed.handler)) ||
          JSON.stringify(a).includes(logicalId(lake.overviewFeed.deadLetterQueue)),
      );
    expect(alarms.map((a) => a.MetricName).sort()).toEqual([
      'ApproximateNumberOfMessagesVisible',
      'IteratorAge',
    ]);
    for (const alarm of alarms) expect(JSON.stringify(alarm.AlarmActions)).toContain('AlarmTopic');
  });
});

describe.each(['sandbox', 'production'] as const)('%s workflow backtests (lib/backtest-job.ts)', (stage) => {
  it("starts the backtest state machine by a rule on the jobs' bus, with its merchant and id, whatever the candidate's size", () => {
    const { lake } = environment(stage);
    // A candidate near the request body's 256 KB: 60 rules of 4,000-character conditions.
    const candidate = {
      rules: Array.from({ length: 60 }, (_, i) => ({
        id: `r${i}`,
        when: 'x'.repeat(4_000),
        decision: 'review',
      })),
    };
    const item = {
      ...backtestKeys.backtest('m_1', 'bt_1'),
      ...jobItemAttributes('backtest', 'bt_1'),
      merchantId: 'm_1',
      backtestId: 'bt_1',
      status: 'pending',
      candidate,
    };
    expect(JSON.stringify(item).length).toBeGreaterThan(240_000);
    expect(expectStartedByRule(stage, logicalId(lake.backtests.stateMachine), 'backtest', item)).toEqual({
      merchantId: 'm_1',
      backtestId: 'bt_1',
    });
  });

  it('runs the backtest as a retried step, records a failure once retries are spent and fails, alarmed', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const machine = logicalId(lake.backtests.stateMachine);
    const [, definition] = resources(template, 'AWS::StepFunctions::StateMachine').find(
      ([id]) => id === machine,
    )!;
    const text = JSON.stringify(definition.Properties.DefinitionString);
    for (const state of ['Backtest', 'RecordFailed', 'BacktestFailed'])
      expect(text).toContain(`\\"${state}\\"`);
    expect(text).toContain('\\"MaxAttempts\\":2');
    const alarms = resources(template, 'AWS::CloudWatch::Alarm')
      .map(([, a]) => a.Properties)
      .filter((a) => a.MetricName === 'ExecutionsFailed' && JSON.stringify(a.Dimensions).includes(machine));
    expect(alarms).toHaveLength(1);
    expect(JSON.stringify(alarms[0]!.AlarmActions)).toContain('AlarmTopic');
  });

  it('grants its step only its backtest items, the workgroup, and the decided events of the lake', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const statements = statementsOf(template, policyStatements(template), lake.backtests.function.role).map(
      ({ statement }) => statement,
    );
    expect(tableGrantsOf(statements)).toEqual([
      {
        actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['M#*#BACKTEST#*'] } },
      },
    ]);
    const athena = statements.filter((s) => asList(s.Action).some((a) => String(a).startsWith('athena:')));
    expect(athena).toHaveLength(1);
    expect(JSON.stringify(athena[0]!.Resource)).toContain(`workgroup/abuse-decision-${stage}-lake`);
    expect(asList(athena[0]!.Action)).toContain('athena:GetQueryResults');
    const glue = JSON.stringify(
      statements.filter((s) => asList(s.Action).some((a) => String(a).startsWith('glue:'))),
    );
    expect(glue).toContain('/decided_events');
    expect(glue).not.toMatch(/feedback|list_changes/);
    const lakeReads = statements.filter(
      (s) => asList(s.Action).includes('s3:GetObject') && !JSON.stringify(s.Resource).includes('/athena/*'),
    );
    expect(JSON.stringify(lakeReads)).toContain('/decided_events/*');
    expect(JSON.stringify(lakeReads)).not.toMatch(/feedback|list_changes/);
    const writes = statements.filter((s) => asList(s.Action).includes('s3:PutObject'));
    expect(writes.map((s) => JSON.stringify(s.Resource))).toEqual([expect.stringContaining('/athena/*')]);
  });
});

describe.each(['sandbox', 'production'] as const)('%s lake (lib/lake-stack.ts)', (stage) => {
  /** The statements of the policies attached to one role. */
  const statementsOf = (template: Template, roleId: string) =>
    policyStatements(template).filter(
      ({ owner }) =>
        owner === roleId ||
        JSON.stringify(
          resources(template, 'AWS::IAM::Policy').find(([id]) => id === owner)?.[1].Properties.Roles,
        ).includes(roleId),
    );

  it('streams every table change to an encrypted Kinesis stream, adding no write to a request', () => {
    const template = templateOf(environment(stage).data);
    const table = only(template, 'AWS::DynamoDB::Table').Properties;
    const [streamId, stream] = resources(template, 'AWS::Kinesis::Stream')[0]!;
    expect(table.KinesisStreamSpecification).toEqual({
      StreamArn: { 'Fn::GetAtt': [streamId, 'Arn'] },
      ApproximateCreationDateTimePrecision: 'MILLISECOND',
    });
    expect(stream.Properties).toMatchObject({
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      StreamEncryption: { EncryptionType: 'KMS', KeyId: 'alias/aws/kinesis' },
    });
  });

  it('catalogues each lake table in Glue with the columns of shared/lake/lake-tables.ts, partitions by projection', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const database = only(template, 'AWS::Glue::Database').Properties;
    expect(database).toMatchObject({ DatabaseInput: { Name: `abuse_decision_${stage}_lake` } });
    const tables = resources(template, 'AWS::Glue::Table').map(([, t]) => t.Properties.TableInput as Json);
    expect(tables.map((t) => t.Name).sort()).toEqual([...LAKE_TABLE_NAMES].sort());
    for (const name of LAKE_TABLE_NAMES) {
      const table = tables.find((t) => t.Name === name)!;
      const storage = table.StorageDescriptor as Json;
      expect((storage.Columns as Json[]).map((c) => [c.Name, c.Type])).toEqual(
        LAKE_TABLES[name].columns.map((c) => [c.name, c.type]),
      );
      expect((table.PartitionKeys as Json[]).map((c) => c.Name)).toEqual(['kind', 'merchant_id', 'day']);
      expect(table.Parameters).toMatchObject({
        classification: 'parquet',
        'projection.enabled': 'true',
        'projection.kind.values': LAKE_TABLES[name].kinds.join(','),
        'projection.merchant_id.type': 'injected',
        'projection.day.type': 'date',
      });
      expect(JSON.stringify((table.Parameters as Json)['storage.location.template'])).toContain(
        `/${name}/kind=\${kind}/merchant_id=\${merchant_id}/day=\${day}/`,
      );
      expect((storage.SerdeInfo as Json).SerializationLibrary).toContain('ParquetHiveSerDe');
    }
  });

  it('has an Athena workgroup of its own: engine 3, enforced, bytes scanned capped, results encrypted and kept a week', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const workGroup = only(template, 'AWS::Athena::WorkGroup').Properties;
    expect(workGroup).toMatchObject({
      Name: `abuse-decision-${stage}-lake`,
      WorkGroupConfiguration: {
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: STAGES[stage].lake.bytesScannedCutoffPerQuery,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: { EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } },
      },
    });
    const results = logicalId(lake.resultsBucket);
    expect(JSON.stringify(workGroup.WorkGroupConfiguration)).toContain(results);
    const resultsBucket = resources(template, 'AWS::S3::Bucket').find(([id]) => id === results)![1]
      .Properties;
    expect(JSON.stringify(resultsBucket.LifecycleConfiguration)).toContain(
      `"ExpirationInDays":${QUERY_RESULT_EXPIRY_DAYS}`,
    );
  });

  it('keeps no kind longer than the table keeps its items', () => {
    const { lake } = environment(stage);
    const template = templateOf(lake);
    const bucket = resources(template, 'AWS::S3::Bucket').find(([id]) => id === logicalId(lake.bucket))![1];
    const rules = (bucket.Properties.LifecycleConfiguration as { Rules: Json[] }).Rules;
    const expiry = (prefix: string) => rules.find((r) => r.Prefix === prefix)?.ExpirationInDays;
    expect(expiry('decided_events/kind=login/')).toBeLessThan(400);
    expect(expiry('decided_events/kind=account/')).toBeLessThan(400);
    expect(expiry('list_changes/')).toBeLessThanOrEqual(30);
    // An erasure's staged rewrite, left by a failed one, goes within a day.
    expect(expiry(ERASURE_STAGING_PREFIX)).toBe(1);
    expect(bucket.Properties.BucketEncryption).toBeDefined();
    expect(bucket.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
  });

  it('delivers each lake table by Firehose from the table stream: its transform, Parquet, one prefix per partition, least privilege', () => {
    const { lake, data } = environment(stage);
    const template = templateOf(lake);
    const streams = resources(template, 'AWS::KinesisFirehose::DeliveryStream');
    expect(streams).toHaveLength(LAKE_TABLE_NAMES.length);
    const functions = resources(template, 'AWS::Lambda::Function').filter(isOurFunction);
    for (const name of LAKE_TABLE_NAMES) {
      const [streamId, stream] = streams.find(([, s]) =>
        JSON.stringify(s.Properties).includes(`"TableName":"${name}"`),
      )!;
      const destination = stream.Properties.ExtendedS3DestinationConfiguration as Json;
      expect(stream.Properties.DeliveryStreamType).toBe('KinesisStreamAsSource');
      expect(JSON.stringify(stream.Properties.KinesisStreamSourceConfiguration)).toContain(
        `${data.stackName}:ExportsOutputFnGetAtt`,
      );
      expect(destination.Prefix).toBe(
        `${name}/kind=!{partitionKeyFromLambda:kind}/merchant_id=!{partitionKeyFromLambda:merchant_id}/day=!{partitionKeyFromLambda:day}/`,
      );
      expect(destination).toMatchObject({
        DynamicPartitioningConfiguration: { Enabled: true },
        BufferingHints: { IntervalInSeconds: 900, SizeInMBs: 128 },
        DataFormatConversionConfiguration: {
          Enabled: true,
          OutputFormatConfiguration: { Serializer: { ParquetSerDe: { Compression: 'SNAPPY' } } },
          SchemaConfiguration: { DatabaseName: `abuse_decision_${stage}_lake`, TableName: name },
        },
      });
      const processor = JSON.stringify(destination.ProcessingConfiguration);
      const [transformId, transform] = functions.find(([id]) => processor.includes(id))!;
      expect((transform.Properties.Environment as { Variables: Json }).Variables.LAKE_TABLE).toBe(name);

      const roleId = (destination.RoleARN as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!;
      const statements = statementsOf(template, roleId);
      const writes = statements.filter(({ statement }) => asList(statement.Action).includes('s3:PutObject'));
      expect(writes).toHaveLength(1);
      expect(JSON.stringify(writes[0]!.statement.Resource)).toContain(`/${name}/*`);
      expect(JSON.stringify(writes[0]!.statement.Resource)).toContain(`/errors/${name}/*`);
      const invokes = statements.filter(({ statement }) =>
        asList(statement.Action).includes('lambda:InvokeFunction'),
      );
      expect(JSON.stringify(invokes.map((s) => s.statement.Resource))).toContain(transformId);
      for (const { statement } of statements) {
        expect(asList(statement.Action)).not.toContain('*');
        expect(asList(statement.Action)).not.toContain('s3:*');
        expect(asList(statement.Action)).not.toContain('s3:DeleteObject');
      }
      const alarms = resources(template, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
        JSON.stringify(a.Properties.Dimensions).includes(streamId),
      );
      expect(alarms.map(([, a]) => a.Properties.MetricName)).toEqual(['DeliveryToS3.DataFreshness']);
      expect(JSON.stringify(alarms[0]![1].Properties.AlarmActions)).toContain('AlarmTopic');
    }
  });
});
