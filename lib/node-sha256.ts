import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';

/**
 * Stands in for @smithy/core/checksum in the Lambda bundles (lib/lambda-bundle.ts aliases it here):
 * the DynamoDB client takes only `Sha256` from it, for SigV4 signing, and on Node that is a wrapper
 * of node:crypto; the module also brings a pure-JS SHA-256 (the fallback without native crypto),
 * MD5, CRC32 and stream hashers, 4 KB nothing calls. Same behaviour as its Sha256Node.
 */
type Data = string | ArrayBufferView | ArrayBuffer;

const toBuffer = (data: Data): string | Buffer =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

export class Sha256 {
  readonly digestLength = 32;
  private readonly secret: Data | undefined;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(secret?: Data) {
    this.secret = secret;
    this.hash = this.createHash();
  }

  update(data: string | ArrayBufferView): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(typeof data === 'string' ? data : toBuffer(data));
  }

  async digest(): Promise<Uint8Array> {
    let buf: Buffer;
    if (this.secret) {
      this.finished = true;
      buf = this.hash.digest();
    } else buf = (this.hash as Hash).copy().digest();
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  reset(): void {
    this.hash = this.createHash();
    this.finished = false;
  }

  private createHash(): Hash | Hmac {
    return this.secret ? createHmac('sha256', toBuffer(this.secret)) : createHash('sha256');
  }
}
