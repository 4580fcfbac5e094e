import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  DomainName,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  type Resource,
  RestApi,
  SecurityPolicy,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayDomain } from 'aws-cdk-lib/aws-route53-targets';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import type { RouteDefinition } from '../shared/http/route.ts';
import { FALLBACK_HANDLER_FILE, PUBLIC_ROUTES, ROUTES } from '../shared/http/routes.ts';
import { ApiFirewall } from './api-firewall.ts';
import { ApiFunction } from './api-function.ts';
import { commonEnvironment, removalPolicyFor, type StageConfig } from './config.ts';
import { ConsoleHosting } from './console-hosting.ts';
import { addGatewayErrors } from './gateway-responses.ts';
import { type MonitoredFunction, Monitoring } from './monitoring.ts';
import { type BucketRef, bucketRef, privateBucket } from './private-bucket.ts';
import { TABLE_ACCESS } from './table-access.ts';

export interface ApiStackProps extends StackProps {
  config: StageConfig;
  table: Table;
  /** The network's keyed-hash secret: every API function may read it (only members' requests do). */
  networkSecret: ISecret;
  /** Seals webhook signing secrets: the console function makes them (and shows each once). */
  webhookSecretsKey: IKey;
  /** The API's routes; defaults to shared/http/routes.ts, the same list the local server serves. */
  routes?: readonly RouteDefinition[];
}

/** An export's link is valid 7 days (shared/privacy/exports-bucket.ts); the object a day more. */
const EXPORT_EXPIRY = Duration.days(8);

/**
 * The stateless part of one environment: the REST API, one function per route plus the 404/405
 * fallback, gateway-made errors in the contract's envelope, access logs, alarms and a dashboard.
 */
export class ApiStack extends Stack {
  readonly api: RestApi;
  readonly functions: ReadonlyMap<string, ApiFunction>;
  readonly monitoring: Monitoring;
  readonly url: string;
  /**
   * Privacy exports and bulk exports (the lake's export state machine): read through the links the
   * management API signs.
   */
  readonly exportsBucket: Bucket;
  /** The same bucket for the privacy worker's stack (lib/privacy-stack.ts), which writes the exports. */
  readonly exportsForWorker: BucketRef;
  readonly console: ConsoleHosting;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { config, table } = props;
    const routes = props.routes ?? ROUTES;
    const logRemovalPolicy = removalPolicyFor(config.protectData);

    // Exports, ephemeral: a privacy request's document under `<merchantId>/privacy/` (docs/privacy.md),
    // a bulk export's files under `<merchantId>/exports/<id>/` (docs/lake.md).
    this.exportsBucket = privateBucket(this, 'Exports', {
      retain: false,
      lifecycleRules: [{ expiration: EXPORT_EXPIRY }],
    });
    Validations.of(this.exportsBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The privacy worker and the export state machine write exports and merchants read them through presigned links, IAM-signed calls ' +
        'CloudTrail records; objects expire after 8 days, so server access logs would add nothing.',
    });
    this.exportsForWorker = bucketRef(this, this.exportsBucket, 'ExportsBucketArn');
    const environment: Record<string, string> = {
      ...commonEnvironment(config),
      DEFAULT_RATE_LIMIT_PER_SECOND: String(config.defaultRateLimit.perSecond),
      DEFAULT_RATE_LIMIT_BURST: String(config.defaultRateLimit.burst),
      NETWORK_SECRET_ARN: props.networkSecret.secretArn,
      EXPORTS_BUCKET: this.exportsBucket.bucketName,
    };
    const functions = new Map<string, ApiFunction>();
    const apiFunction = (name: keyof typeof TABLE_ACCESS, handlerFile: string, description: string) => {
      const fn = new ApiFunction(this, `${pascalCase(name)}Function`, {
        name,
        handlerFile,
        description,
        environment,
        logRetention: config.logRetention,
        logRemovalPolicy,
      });
      fn.bindTable(table, TABLE_ACCESS[name]);
      props.networkSecret.grantRead(fn.role);
      fn.readDigestKeys(config.stage);
      functions.set(name, fn);
      return fn;
    };

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: config.logRetention,
      removalPolicy: logRemovalPolicy,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: `AbuseDecision-${config.stage}`,
      description: `Abuse-decision API (${config.stage})`,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // With a domain, its TLS policy is the only way in: callers cannot skip it by the execute-api URL.
      disableExecuteApiEndpoint: config.customDomain !== undefined,
      // Access logging needs the account-level API Gateway role; RETAIN keeps it for the other stage.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: config.stage,
        throttlingRateLimit: config.apiThrottle.rateLimit,
        throttlingBurstLimit: config.apiThrottle.burstLimit,
        tracingEnabled: true,
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            extendedRequestId: AccessLogField.contextExtendedRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            path: AccessLogField.contextPath(),
            status: AccessLogField.contextStatus(),
            protocol: AccessLogField.contextProtocol(),
            responseLength: AccessLogField.contextResponseLength(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            integrationStatus: AccessLogField.contextIntegrationStatus(),
            errorResponseType: AccessLogField.contextErrorResponseType(),
            sourceIp: AccessLogField.contextIdentitySourceIp(),
            userAgent: AccessLogField.contextIdentityUserAgent(),
          }),
        ),
      },
    });
    addGatewayErrors(this.api);
    new ApiFirewall(this, 'Firewall', {
      stage: this.api.deploymentStage,
      stageRateLimit: config.apiThrottle.rateLimit,
    });
    acknowledgeApiFindings(this.api);

    // Wrong methods and unknown paths reach our own code (authentication first, then 404/405):
    // `ANY` on the root, on a greedy proxy, and on every resource of the route tree. An explicit
    // method (POST) always wins over `ANY` on the same resource.
    const fallback = apiFunction(
      'fallback',
      FALLBACK_HANDLER_FILE,
      'Answers 404 for unknown paths and 405 for wrong methods, after authentication',
    );
    const fallbackIntegration = new LambdaIntegration(fallback.handler, { scopePermissionToMethod: false });
    this.api.root.addMethod('ANY', fallbackIntegration);
    this.api.root.addResource('{proxy+}').addMethod('ANY', fallbackIntegration);

    const routeResources = new Map<string, Resource>();
    for (const route of routes) {
      // Routes sharing a function (the management API's) get it once.
      const fn =
        functions.get(route.functionName) ??
        apiFunction(
          route.functionName as keyof typeof TABLE_ACCESS,
          route.handlerFile,
          route.functionName === route.endpoint
            ? `${route.method} ${route.path}`
            : `The ${route.functionName} endpoints (${route.handlerFile})`,
        );
      const resource = this.api.root.resourceForPath(route.path);
      resource.addMethod(route.method, new LambdaIntegration(fn.handler, { allowTestInvoke: false }));
      for (const prefix of pathPrefixes(route.path)) {
        routeResources.set(prefix, this.api.root.resourceForPath(prefix));
      }
    }
    // The OpenAPI document: no key, no table (its function's role has no table access).
    for (const route of PUBLIC_ROUTES) {
      const fn = apiFunction(
        route.name,
        route.handlerFile,
        `${route.method} ${route.path} (no authentication)`,
      );
      this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new LambdaIntegration(fn.handler, { allowTestInvoke: false }));
      for (const prefix of pathPrefixes(route.path)) {
        routeResources.set(prefix, this.api.root.resourceForPath(prefix));
      }
    }
    for (const resource of routeResources.values()) resource.addMethod('ANY', fallbackIntegration);
    // The console makes webhook secrets (shown once); nothing in this stack opens one.
    functions.get('console')?.bindWebhookSecretsKey(props.webhookSecretsKey, 'seal');
    this.functions = functions;
    const managementApi = functions.get('console');
    if (managementApi) {
      // A presigned link is only as good as its signer's own right to read the object.
      managementApi.role.addToPolicy(
        new PolicyStatement({
          actions: ['s3:GetObject'],
          resources: [this.exportsBucket.arnForObjects('*')],
        }),
      );
      const bucketId = this.getLogicalId(this.exportsBucket.node.defaultChild as CfnBucket);
      Validations.of(managementApi.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/*]`,
        reason:
          's3:GetObject on the objects of the exports bucket only, to sign the links GET /v1/privacy/requests/{id} and ' +
          'GET /v1/exports/{id} answer; the keys are recorded on the request or export. No listing, no writing.',
      });
    }

    this.url = this.api.url;
    if (config.customDomain) {
      const { domainName, certificateArn, hostedZone } = config.customDomain;
      const domain = new DomainName(this, 'CustomDomain', {
        domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
      domain.addBasePathMapping(this.api, { stage: this.api.deploymentStage });
      if (hostedZone) {
        new ARecord(this, 'CustomDomainRecord', {
          zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', hostedZone),
          recordName: domainName,
          target: RecordTarget.fromAlias(new ApiGatewayDomain(domain)),
        });
      } else {
        new CfnOutput(this, 'CustomDomainTarget', {
          value: domain.domainNameAliasDomainName,
          description: `Point ${domainName} (CNAME or alias) at this name`,
        });
      }
      this.url = `https://${domainName}/`;
    }

    this.console = new ConsoleHosting(this, 'Console', {
      api: this.api,
      ...(config.customDomain ? { apiDomainName: config.customDomain.domainName } : {}),
      retain: config.protectData,
      logRetention: config.logRetention,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      config,
      stage: this.api.deploymentStage,
      table,
      functions: [...functions].map(([name, fn]): MonitoredFunction => ({ name, handler: fn.handler })),
    });

    new CfnOutput(this, 'ApiUrl', {
      value: this.url,
      description: `Base URL of the ${config.stage} API (paths start with v1/)`,
    });
    new CfnOutput(this, 'TableName', {
      value: table.tableName,
      description: `TABLE_NAME for the admin CLI (ENVIRONMENT=${config.stage})`,
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn });
  }
}

/** cdk-nag findings on the API that are deliberate, each with its reason. */
function acknowledgeApiFindings(api: RestApi): void {
  const authentication =
    'Merchants authenticate with an API key in the Authorization header, checked first by every ' +
    'function (the 404/405 fallback included): SHA-256 key lookup, environment prefix, revocation, ' +
    "merchant status and key scope, each answered with the contract's 401/403 code and envelope. " +
    'The one route without a key is GET /v1/openapi.json, the published API reference, which reads no data. ' +
    'IAM and Cognito authorizers do not fit server-to-server merchant keys.';
  Validations.of(api).acknowledge(
    { id: 'AwsSolutions-APIG4', reason: authentication },
    { id: 'AwsSolutions-COG4', reason: authentication },
    {
      id: 'AwsSolutions-APIG2',
      reason:
        'Bodies are validated in the functions by strict zod schemas (shared/schemas), so every ' +
        "failure is answered in the contract's envelope with its exact code and field (400 " +
        'invalid_request, 422 unknown_field, ...); an API Gateway request validator would answer ' +
        'with its own body instead.',
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The account-level role API Gateway uses to write access and execution logs; this AWS ' +
        'managed policy is the documented policy for that role.',
    },
  );
}

/** `/v1/return/disposition/{return-id}` -> `/v1`, `/v1/return`, `/v1/return/disposition`, itself. */
function pathPrefixes(path: string): string[] {
  const segments = path.split('/').filter(Boolean);
  return segments.map((_, i) => `/${segments.slice(0, i + 1).join('/')}`);
}

function pascalCase(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
