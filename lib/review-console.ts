import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
  type BehaviorOptions,
} from 'aws-cdk-lib/aws-cloudfront';
import { RestApiOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type IBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildConsoleFiles, consoleContentSecurityPolicy, consolePathPrefix } from '../src/local/console-bundle.ts';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';

export interface ReviewConsoleProps {
  restApi: RestApi;
  /** Where documents' pre-signed contentUrls point: the console's page may fetch from there. */
  filesBucket: IBucket;
  accessLogsBucket: IBucket;
}

/**
 * The review console deployed as static files: a private bucket read by CloudFront through origin
 * access control, and one distribution that serves /console/* from it and forwards everything else to
 * the REST API. The console calls the API on its own origin, so the API needs no CORS.
 */
export class ReviewConsole extends Construct {
  readonly distribution: Distribution;
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: ReviewConsoleProps) {
    super(scope, id);

    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // The files are the built console, public through CloudFront anyway: S3-managed keys suffice.
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogsBucket,
      serverAccessLogsPrefix: 'console/',
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const consoleHeaders = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'Paperflow review console: strict CSP and security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: {
          contentSecurityPolicy: consoleContentSecurityPolicy([`https://${props.filesBucket.bucketRegionalDomainName}`]),
          override: true,
        },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
    });
    // `/console` and `/console/` are the page: S3 only knows `console/index.html`.
    const consoleIndex = new CloudFrontFunction(this, 'IndexRewrite', {
      comment: 'Paperflow review console: /console and /console/ serve index.html',
      code: FunctionCode.fromInline(
        `function handler(event) {
  var request = event.request;
  if (request.uri === '${consolePathPrefix}') return { statusCode: 308, statusDescription: 'Permanent Redirect', headers: { location: { value: '${consolePathPrefix}/' } } };
  if (request.uri.endsWith('/')) request.uri += 'index.html';
  return request;
}`,
      ),
    });
    const consoleBehavior: BehaviorOptions = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: consoleHeaders,
      functionAssociations: [{ function: consoleIndex, eventType: FunctionEventType.VIEWER_REQUEST }],
    };

    this.distribution = new Distribution(this, 'Distribution', {
      comment: 'Paperflow: the review console and the public API on one origin',
      // Everything that is not the console is the API, uncached, with the caller's headers
      // (Authorization, X-Request-Id) and query string.
      defaultBehavior: {
        origin: new RestApiOrigin(props.restApi),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      additionalBehaviors: { [`${consolePathPrefix}/*`]: consoleBehavior, [consolePathPrefix]: consoleBehavior },
    });

    new BucketDeployment(this, 'Deployment', {
      sources: buildConsoleFiles().map((file) => Source.data(`${consolePathPrefix.slice(1)}/${file.path}`, Buffer.from(file.contents).toString('utf8'))),
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: [`${consolePathPrefix}/*`],
      memoryLimit: 256,
      logGroup: new LogGroup(this, 'DeploymentLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    });

    acknowledgeConsoleFindings(this);
  }
}

function acknowledgeConsoleFindings(reviewConsole: ReviewConsole): void {
  const distribution = reviewConsole.distribution;
  acknowledgeNagFinding(
    distribution,
    'AwsSolutions-CFR1',
    'The console and the API serve customers wherever they are; an account that must restrict countries adds a geo restriction to the distribution.',
  );
  acknowledgeNagFinding(
    distribution,
    'AwsSolutions-CFR2',
    'A WAF web ACL is an account-level choice with its own cost and rules (as for the API stage, AwsSolutions-APIG3); the API behind the distribution keeps its authorizer, usage plans and stage throttle.',
  );
  acknowledgeNagFinding(
    distribution,
    'AwsSolutions-CFR3',
    'Every API request through the distribution is logged by the API stage\'s JSON access log; the console paths serve the same public static files to everyone, and CloudFront standard logs need an ACL-enabled bucket, which the access-log bucket refuses on purpose.',
  );
  acknowledgeNagFinding(
    distribution,
    'AwsSolutions-CFR4',
    'The distribution uses CloudFront\'s default certificate (*.cloudfront.net), with which CloudFront fixes the minimum protocol; with a custom domain and an ACM certificate, set minimumProtocolVersion TLSv1.2_2021.',
  );

  // CDK's BucketDeployment singleton: a deploy-time function CDK writes and maintains.
  const reason =
    'CDK\'s BucketDeployment singleton, which only copies the built console from the CDK asset bucket into the console bucket and invalidates the distribution while deploying: its code, runtime, role and policies are CDK\'s, not this project\'s.';
  for (const child of Stack.of(reviewConsole).node.children) {
    if (!child.node.id.startsWith('Custom::CDKBucketDeployment')) continue;
    for (const ruleId of ['AwsSolutions-L1', 'Serverless-LambdaDLQ', 'Serverless-LambdaLatestVersion', 'Serverless-LambdaTracing']) {
      acknowledgeNagFinding(child, ruleId, reason, { applyToChildren: true });
    }
    acknowledgeNagFinding(child, 'AwsSolutions-IAM4', reason, {
      applyToChildren: true,
      appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
    });
    acknowledgeNagFinding(child, 'AwsSolutions-IAM5', reason, {
      applyToChildren: true,
      appliesTo: [
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*',
        { regex: '/^Resource::<ReviewConsoleFiles[0-9A-F]+\\.Arn>\\/\\*$/g' },
        // cloudfront:CreateInvalidation takes no resource-level permission in CDK's grant.
        'Resource::*',
      ],
    });
  }
}
