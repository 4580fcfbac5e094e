import { Duration, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/**
 * A dead-letter queue (`DeadLetters` in `scope`): encrypted, TLS only, its messages kept 14 days.
 * cdk-nag asks every queue for a dead-letter queue of its own; this one answers that it is one, of
 * `of`, and that nothing redrives from it (its messages are read, the work is redone by hand).
 */
export function deadLetterQueue(scope: Construct, of: string): Queue {
  const queue = new Queue(scope, 'DeadLetters', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason: `This queue is itself the dead-letter queue of ${of}; nothing redrives from it.`,
  });
  return queue;
}
