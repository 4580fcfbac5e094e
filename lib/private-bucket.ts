import type { Stack } from 'aws-cdk-lib';
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type BucketProps,
  type IBucket,
  ObjectOwnership,
} from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { removalPolicyFor } from './config.ts';

/**
 * A bucket of ours: no public access, encrypted at rest, TLS only, no ACLs (the bucket owner owns
 * every object), kept on stack deletion where data is protected.
 */
export function privateBucket(
  scope: Construct,
  id: string,
  { retain, ...settings }: { retain: boolean } & Pick<BucketProps, 'lifecycleRules'>,
): Bucket {
  return new Bucket(scope, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    ...settings,
    removalPolicy: removalPolicyFor(retain),
  });
}

/**
 * A bucket as a function in another stack is handed it: its ARN under an export name of this stack's
 * choosing (CDK's own are hashes, and cdk-nag's acknowledgements name them).
 */
export interface BucketRef {
  bucketName: string;
  bucketArn: string;
  arnExportName: string;
}

export function bucketRef(stack: Stack, bucket: IBucket, exportName: string): BucketRef {
  const arnExportName = `${stack.stackName}:${exportName}`;
  return {
    bucketName: bucket.bucketName,
    bucketArn: stack.exportValue(bucket.bucketArn, { name: arnExportName }),
    arnExportName,
  };
}
