import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { SESSION_COOKIE_MARKER, WELL_FORMED_AUTHORIZATION_REGEX } from '../shared/auth/credential-format.ts';
import { PUBLIC_ROUTES } from '../shared/http/routes.ts';
import { ADDRESS_SHARE_OF_STAGE, FAILED_AUTHENTICATION_LIMIT } from '../shared/http/web-acl-rules.ts';

export interface ApiFirewallProps {
  stage: Stage;
  /** The stage's steady throttle (requests a second): one address may take a share of it. */
  stageRateLimit: number;
}

/** The label the first rule puts on a request with no well-formed credential; the second counts it. */
export const NO_CREDENTIAL_LABEL = 'credential:missing-or-malformed';

/**
 * The web ACL in front of the API stage (shared/http/web-acl-rules.ts says why these rules):
 *   1. label a request that carries neither a well-formed API key nor a console session cookie, and
 *      is not for a public route: exactly the requests the functions answer 401 without a read;
 *   2. block an address's labelled requests past FAILED_AUTHENTICATION_LIMIT (a rate-based rule
 *      scoped down by the label: its well-formed requests still pass);
 *   3. block an address past its share of the stage's throttle, whatever it sends, so one address
 *      flooding well-formed unknown keys cannot take the stage's whole budget.
 * Blocked requests are answered by the stage's WAF_FILTERED response (lib/gateway-responses.ts).
 */
export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);
    // singleHeader is untyped JSON in the CDK, so its key is spelled as CloudFormation has it.
    const header = (name: string) => ({ singleHeader: { Name: name } });
    const not = (statement: CfnWebACL.StatementProperty) => ({ notStatement: { statement } });
    const visibility = (metricName: string) => ({
      metricName,
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
    });

    const hasWellFormedKey: CfnWebACL.StatementProperty = {
      regexMatchStatement: {
        fieldToMatch: header('authorization'),
        regexString: WELL_FORMED_AUTHORIZATION_REGEX,
        textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
      },
    };
    const hasSessionCookie: CfnWebACL.StatementProperty = {
      byteMatchStatement: {
        fieldToMatch: header('cookie'),
        positionalConstraint: 'CONTAINS',
        searchString: SESSION_COOKIE_MARKER,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    // The stage name prefixes the path on the execute-api endpoint, not on a custom domain.
    const publicRoutes: CfnWebACL.StatementProperty[] = PUBLIC_ROUTES.map((route) => ({
      byteMatchStatement: {
        fieldToMatch: { uriPath: {} },
        positionalConstraint: 'ENDS_WITH',
        searchString: route.path,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    }));
    const isPublicRoute =
      publicRoutes.length === 1 ? publicRoutes[0]! : { orStatement: { statements: publicRoutes } };

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('Api'),
      rules: [
        {
          name: 'NoWellFormedCredential',
          priority: 0,
          action: { count: {} },
          ruleLabels: [{ name: NO_CREDENTIAL_LABEL }],
          statement: {
            andStatement: {
              statements: [not(hasWellFormedKey), not(hasSessionCookie), not(isPublicRoute)],
            },
          },
          visibilityConfig: visibility('NoWellFormedCredential'),
        },
        {
          name: 'FailedAuthenticationPerAddress',
          priority: 1,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: FAILED_AUTHENTICATION_LIMIT.requests,
              evaluationWindowSec: FAILED_AUTHENTICATION_LIMIT.windowSeconds,
              scopeDownStatement: { labelMatchStatement: { scope: 'LABEL', key: NO_CREDENTIAL_LABEL } },
            },
          },
          visibilityConfig: visibility('FailedAuthenticationPerAddress'),
        },
        {
          name: 'ShareOfStagePerAddress',
          priority: 2,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: Math.round(
                props.stageRateLimit * ADDRESS_SHARE_OF_STAGE.share * ADDRESS_SHARE_OF_STAGE.windowSeconds,
              ),
              evaluationWindowSec: ADDRESS_SHARE_OF_STAGE.windowSeconds,
            },
          },
          visibilityConfig: visibility('ShareOfStagePerAddress'),
        },
      ],
    });
    const association = new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    association.node.addDependency(props.stage);
  }
}
