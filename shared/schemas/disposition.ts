import * as z from 'zod';
import { apiEnum, IDENTIFIER_TYPES, idText, LIMITS, text } from './fields.ts';

/** POST /v1/return/disposition/{return-id} request body (docs/api.md). */
const RETURNED_ITEM_CONDITIONS = [
  'NEW',
  'OPEN_BOX',
  'LIGHTLY_USED',
  'HEAVILY_USED',
  'EMPTY_BOX',
  'COUNTERFEIT_ITEM',
  'DAMAGED_ITEM',
  'LOST_ITEM',
] as const;

const DISPOSITION_OUTCOMES = [
  'RESTOCK',
  'RESTOCK - SALE/CLEARANCE',
  'RECYCLED',
  'REFURBISH',
  'DONATED',
  'LIQUIDATE',
  'REMOVE_OTHERS',
  'REMOVE_SUSPECT_ABUSE',
] as const;

/** Not the return's value sets: dispositions spell methods differently and add CASH. */
const DISPOSITION_RETURN_METHODS = ['PICKUP', 'DROPOFF', 'IN_STORE'] as const;
const DISPOSITION_REFUND_MODES = ['CASH', 'STORE_CREDIT', 'ORIGINAL_PAYMENT', 'EXCHANGE'] as const;

/** Every enum of a disposition reports `unknown_enum_value`, the catalog's code for dispositions. */
const dispositionEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  apiEnum(values, 'unknown_enum_value');

/** Inspection photos: http(s) URLs; long signed URLs are common, so twice the default string bound. */
const imageUrl = () => z.url({ protocol: /^https?$/ }).max(2048);

export const itemDispositionSchema = z.strictObject({
  identifierType: dispositionEnum(IDENTIFIER_TYPES),
  identifier: idText(),
  returnedItemCondition: dispositionEnum(RETURNED_ITEM_CONDITIONS),
  dispositionOutcome: dispositionEnum(DISPOSITION_OUTCOMES),
  returnMethod: z.strictObject({ returnMethod: dispositionEnum(DISPOSITION_RETURN_METHODS) }).optional(),
  refundMode: z.strictObject({ refundMode: dispositionEnum(DISPOSITION_REFUND_MODES) }).optional(),
  warehouseIdentifier: idText().optional(),
  storeIdentifier: idText().optional(),
  images: z.array(imageUrl()).max(LIMITS.images).optional(),
  inspectionNote: text().optional(),
});

export const dispositionRequestSchema = z.strictObject({
  itemDispositions: z.array(itemDispositionSchema).min(1).max(LIMITS.dispositions),
});

export type DispositionRequest = z.infer<typeof dispositionRequestSchema>;
export type ItemDisposition = z.infer<typeof itemDispositionSchema>;
