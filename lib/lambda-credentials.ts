/**
 * Stands in for @aws-sdk/credential-provider-node in the Lambda bundles only (lib/api-function.ts
 * aliases it here): Lambda always hands a function its role's credentials in environment variables,
 * so the rest of the default chain (SSO, INI files, processes, web identity, container and instance
 * metadata, with the STS and SSO clients they bring) is never reached there, yet made up about
 * 140 KB of every bundle. Local runs and tests are not bundled and keep the full chain.
 */
interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export const defaultProvider = () => async (): Promise<EnvCredentials> => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('No AWS credentials in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)');
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
};
