/**
 * The web ACL in front of every CloudFront distribution of the service (AWS WAF, CLOUDFRONT scope, so made in
 * us-east-1): AWS's managed core rule set, known bad inputs and Amazon IP reputation list, then per-IP rate
 * limits with separate budgets for unauthenticated requests and for those that carry credentials (an
 * `Authorization` header: a `bc_` key or a console token). A refused request never reaches a function or a table.
 */
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

/** Requests per IP per minute (WAF's rate-based rules, 60 s window) before WAF answers 429 for a while. */
export interface EdgeRateLimits {
  readonly unauthenticated: number;
  readonly authenticated: number;
}
export const DEFAULT_EDGE_RATE_LIMITS: EdgeRateLimits = { unauthenticated: 300, authenticated: 3000 };

export const MANAGED_RULE_GROUPS = [
  'AWSManagedRulesCommonRuleSet',
  'AWSManagedRulesKnownBadInputsRuleSet',
  'AWSManagedRulesAmazonIpReputationList',
] as const;

const visibility = (metricName: string) => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

export class EdgeWebAcl extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: { readonly prefix: string; readonly limits: EdgeRateLimits }) {
    super(scope, id);
    const hasAuthorization = {
      sizeConstraintStatement: {
        fieldToMatch: { singleHeader: { Name: 'authorization' } },
        comparisonOperator: 'GT',
        size: 0,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    };
    const rateRule = (name: string, priority: number, limit: number, scopeDown: CfnWebACL.StatementProperty) => ({
      name,
      priority,
      action: { block: { customResponse: { responseCode: 429 } } },
      statement: {
        rateBasedStatement: { limit, aggregateKeyType: 'IP', evaluationWindowSec: 60, scopeDownStatement: scopeDown },
      },
      visibilityConfig: visibility(`${props.prefix}-${name}`),
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      name: `${props.prefix}-edge`,
      description: `${props.prefix}: every CloudFront distribution of the service - API, console, videos`,
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`${props.prefix}-edge`),
      rules: [
        ...MANAGED_RULE_GROUPS.map((name, n) => ({
          name,
          priority: n,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name,
              // The API takes bodies up to 256 KiB (docs/api-contract.md, "Bodies"); the core set blocks those over
              // 8 KB (SizeRestrictions_BODY). Counted, not blocked: the functions refuse larger bodies themselves.
              ...(name === 'AWSManagedRulesCommonRuleSet' && {
                ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
              }),
            },
          },
          visibilityConfig: visibility(`${props.prefix}-${name}`),
        })),
        rateRule('RatePerIpUnauthenticated', 10, props.limits.unauthenticated, {
          notStatement: { statement: hasAuthorization },
        }),
        rateRule('RatePerIpAuthenticated', 11, props.limits.authenticated, hasAuthorization),
      ],
    });
  }
}
