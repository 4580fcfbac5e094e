/**
 * Stands in for @smithy/core/event-streams in the Lambda bundles (lib/api-function.ts aliases it
 * here): the SDK loads it with a dynamic import only for operations that stream events, and
 * DynamoDB has none, yet esbuild bundled its 15 KB into every function.
 */
const unavailable = (): never => {
  throw new Error('Event streams are not bundled: no DynamoDB operation uses them');
};

export class EventStreamSerde {
  constructor() {
    unavailable();
  }
}

export const eventStreamSerdeProvider = unavailable;

/**
 * The S3 client (the history import job) resolves its event-stream marshaller when it is built;
 * here it gets none, so only an event-stream operation (SelectObjectContent, which we never send)
 * would fail, when sent. GetObject streams a plain body and needs none.
 */
export const resolveEventStreamSerdeConfig = <T>(input: T): T => input;
