import type { ErrorCode } from '../errors.ts';

/**
 * When each code of the error catalog (shared/errors.ts) is given, as the OpenAPI document's error
 * responses say it. Prose no request needs, kept out of the catalog that every function loads: only
 * the document (openapi.ts) imports this module. Keyed by every code, so tsc fails when one is missing.
 */
export const ERROR_CONDITIONS: Readonly<Record<ErrorCode, string>> = {
  unauthenticated: 'Authorization header missing',
  invalid_api_key: 'Key format invalid, unknown or revoked',
  environment_mismatch: 'Key prefix and base address belong to different environments',
  forbidden: 'Key not authorized for the endpoint, or merchant suspended',
  endpoint_not_enabled: 'Account-update endpoint not enabled on the account',
  invalid_request: 'Malformed JSON, required field missing or wrong JSON type',
  unprocessable_entity: 'Field present but value invalid',
  unknown_field: 'Field not in the schema',
  invalid_currency_code: 'Currency is not an ISO 4217 numeric code',
  invalid_timestamp: 'Timestamp is not epoch milliseconds',
  unknown_enum_value: 'Enumerated field outside allowed values (disposition, dispute)',
  item_not_on_return: 'Disposition identifier matches no item on the return',
  not_found: 'Resource does not exist',
  order_not_found: 'Order id unknown (returns, disputes)',
  return_not_found: 'Return id unknown (dispositions)',
  method_not_allowed: 'Known path, other method',
  duplicate_order: 'providerOrderId exists with a different body',
  duplicate_return: 'providerReturnId exists with a different body',
  duplicate_customer: 'Signup customerId exists with a different body',
  duplicate_dispute_id: 'disputeId collides with a dispute on a different order',
  review_already_resolved: 'The review was resolved before',
  duplicate_list_entry: 'The identity is on this list already, with another reason, expiry or scope',
  invalid_workflow: 'The workflow has problems (listed in error.details)',
  invalid_csv_rows: 'Rows of the uploaded CSV are invalid (each in error.details); nothing was recorded',
  idempotency_key_reused: 'Idempotency-Key already used with a different request',
  gone: 'Deprecated route past its sunset',
  payload_too_large: 'Request body over the size limit',
  request_timeout: 'Request not received in time (local server)',
  uri_too_long: 'Request line over the server limit (local server)',
  request_header_fields_too_large: 'Headers over the server limit (local server)',
  rate_limited: 'Rate limit exceeded',
  internal_error: 'Internal failure',
  bad_gateway: 'Upstream issue',
  service_unavailable: 'Temporary unavailability',
};
