import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { readRuntimeConfig } from '../config.ts';
import type { EncryptionContext, NewDataKey } from './data-keys.ts';

/**
 * Data keys from the environment's KMS key (WEBHOOK_SECRETS_KEY_ARN): GenerateDataKey where a secret
 * is made (the console function, the admin CLI), Decrypt where one signs (the webhook worker). The
 * stack grants each function only its own action (ApiFunction.bindWebhookSecretsKey).
 */
let client: KMSClient | undefined;
const kms = () => {
  client ??= new KMSClient({ region: readRuntimeConfig().region });
  return client;
};

export async function kmsGenerateDataKey(keyId: string, context: EncryptionContext): Promise<NewDataKey> {
  const { Plaintext, CiphertextBlob } = await kms().send(
    new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: { ...context } }),
  );
  if (!Plaintext || !CiphertextBlob) throw new Error('KMS returned no data key');
  return { plaintext: Buffer.from(Plaintext), encrypted: Buffer.from(CiphertextBlob) };
}

export async function kmsDecryptDataKey(
  keyId: string,
  encrypted: Buffer,
  context: EncryptionContext,
): Promise<Buffer> {
  const { Plaintext } = await kms().send(
    new DecryptCommand({ KeyId: keyId, CiphertextBlob: encrypted, EncryptionContext: { ...context } }),
  );
  if (!Plaintext) throw new Error('KMS returned no plaintext');
  return Buffer.from(Plaintext);
}
