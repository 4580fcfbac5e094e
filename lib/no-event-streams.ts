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
