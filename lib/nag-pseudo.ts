import { type Stack, Token } from 'aws-cdk-lib';

/**
 * A stack's partition, region and account as cdk-nag prints them in a finding's ARN: the literal
 * value where the stage or the CLI resolves it (a deploy always has a region, and an account with
 * credentials), the pseudo parameter's placeholder where it stays a token. An acknowledgement
 * written with the placeholders only matches a synthesis without either.
 */
export function nagPseudo(stack: Stack): { partition: string; region: string; account: string } {
  const literal = (value: string, placeholder: string) => (Token.isUnresolved(value) ? placeholder : value);
  return {
    partition: literal(stack.partition, '<AWS::Partition>'),
    region: literal(stack.region, '<AWS::Region>'),
    account: literal(stack.account, '<AWS::AccountId>'),
  };
}
