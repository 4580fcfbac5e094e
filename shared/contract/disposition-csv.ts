/**
 * The columns of the dispositions CSV (the disposition endpoint's fields plus the return's id), in
 * template order: the upload endpoint checks a file's header against them and the console's
 * template download writes them. No imports, so the dashboard bundles only this list.
 */
export const DISPOSITION_CSV_COLUMNS = [
  'returnId',
  'identifierType',
  'identifier',
  'returnedItemCondition',
  'dispositionOutcome',
  'returnMethod',
  'refundMode',
  'warehouseIdentifier',
  'storeIdentifier',
  'images',
  'inspectionNote',
] as const;
