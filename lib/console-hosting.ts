import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Function as CloudFrontFunction,
  Distribution,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginProtocolPolicy,
  OriginRequestPolicy,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket, CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { CONSOLE_SECURITY_HEADERS } from '../local/dashboard-files.ts';
import { removalPolicyFor } from './config.ts';
import { nagPseudo } from './nag-pseudo.ts';
import { privateBucket } from './private-bucket.ts';

/** The built console (scripts/build-dashboard.ts; `npm run synth` and `npm test` build it first). */
export const DASHBOARD_DIST = join(import.meta.dirname, '..', 'dashboard', 'dist');

export interface ConsoleHostingProps {
  api: RestApi;
  /** The API's custom domain: its execute-api endpoint is then disabled, so `/v1/*` goes there. */
  apiDomainName?: string;
  /** Keep the bucket when the stack goes (production). */
  retain: boolean;
  /** The deployment function's log retention, as the API functions'. */
  logRetention: RetentionDays;
}

/**
 * The merchant console in AWS: its files in a private S3 bucket read only by CloudFront (origin
 * access control), and a second behaviour sending `/v1/*` to API Gateway uncached, so the console
 * and the API share one origin and the SameSite=Strict session cookie reaches the API. Deployed by
 * the same `cdk deploy` as the API.
 */
export class ConsoleHosting extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: ConsoleHostingProps) {
    super(scope, id);
    if (!existsSync(join(DASHBOARD_DIST, 'index.html'))) {
      throw new Error('dashboard/dist is missing: run `node scripts/build-dashboard.ts` before synthesis');
    }
    this.bucket = privateBucket(this, 'Files', { retain: props.retain });

    // The console's own paths (/reviews, /workflows?type=order) are index.html; files keep their path.
    const spaPaths = new CloudFrontFunction(this, 'ConsolePaths', {
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Console pages without a file extension are index.html',
      code: FunctionCode.fromInline(
        "function handler(event) { var r = event.request; if (r.uri.indexOf('.') < 0) { r.uri = '/index.html'; } return r; }",
      ),
    });
    const headers = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'The console’s security headers (same as the local server)',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: CONSOLE_SECURITY_HEADERS['Content-Security-Policy']!,
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.SAME_ORIGIN, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });

    this.distribution = new Distribution(this, 'Distribution', {
      comment: `Merchant console and API (${Stack.of(this).stackName})`,
      defaultRootObject: 'index.html',
      priceClass: PriceClass.PRICE_CLASS_100,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        functionAssociations: [{ function: spaPaths, eventType: FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        '/v1/*': {
          origin: props.apiDomainName
            ? new HttpOrigin(props.apiDomainName, { protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY })
            : new RestApiOrigin(props.api),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          // Every answer is per caller: nothing cached, every header (Authorization, Cookie), query
          // string and body reaches API Gateway.
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
        },
      },
    });

    new BucketDeployment(this, 'Deploy', {
      sources: [Source.asset(DASHBOARD_DIST)],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/index.html'],
      memoryLimit: 256,
      // Its own log group, kept like the API functions' (no physical name, the stage's retention).
      logGroup: new LogGroup(this, 'DeployLogs', {
        retention: props.logRetention,
        removalPolicy: removalPolicyFor(props.retain),
      }),
    });

    new CfnOutput(this, 'ConsoleUrl', {
      value: `https://${this.distribution.distributionDomainName}/`,
      description: 'The merchant console; the API answers under /v1/ at the same address',
    });
    acknowledgeConsoleFindings(this);
  }
}

/** cdk-nag findings on the console's hosting that are deliberate, each with its reason. */
function acknowledgeConsoleFindings(hosting: ConsoleHosting): void {
  const stack = Stack.of(hosting);
  const { partition, region, account } = nagPseudo(stack);
  Validations.of(hosting).acknowledge(
    {
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only the built console (public JavaScript and CSS, replaced on each deploy); reads go through CloudFront, whose requests to /v1 are logged by API Gateway’s access logs.',
    },
    {
      id: 'AwsSolutions-CFR1',
      reason: 'Merchants sign in from anywhere; access is controlled by console keys, not by geography.',
    },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        'The console’s files are static; its /v1 requests reach the API stage, whose own web ACL (lib/api-firewall.ts) limits each address. A CloudFront web ACL would have to live in us-east-1, outside this stack’s region.',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'No CloudFront access logs: the console’s files are static, and every /v1 request is in API Gateway’s access log.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default *.cloudfront.net certificate cannot be pinned to TLS 1.2 by CloudFront; a custom domain with its own certificate can, when one is configured.',
    },
  );
  // The BucketDeployment's copy function is CDK's own custom resource (a singleton in the stack).
  Validations.of(stack).acknowledge(
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      reason:
        'The console deployment’s copy function (CDK BucketDeployment) logs with the AWS managed basic execution policy.',
    },
    ...[
      'Action::s3:Abort*',
      'Action::s3:DeleteObject*',
      'Action::s3:GetBucket*',
      'Action::s3:GetObject*',
      'Action::s3:List*',
      `Resource::<${stack.getLogicalId(hosting.bucket.node.defaultChild as CfnBucket)}.Arn>/*`,
      `Resource::arn:${partition}:s3:::cdk-hnb659fds-assets-${account}-${region}/*`,
    ].map((finding) => ({
      id: `AwsSolutions-IAM5[${finding}]`,
      reason:
        'The console deployment’s copy function (CDK BucketDeployment) reads the CDK asset bucket and replaces the objects of the console bucket: object-level wildcards on those two buckets only.',
    })),
    {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'The console deployment’s copy function invalidates the CloudFront cache after copying; cloudfront:CreateInvalidation takes no resource-level ARN in the policy CDK generates.',
    },
    {
      id: 'AwsSolutions-L1',
      reason: 'The CDK BucketDeployment custom resource pins its own runtime; it runs only at deployment.',
    },
  );
}
