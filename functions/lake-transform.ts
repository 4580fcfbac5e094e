import type { FirehoseTransformationEvent } from 'aws-lambda';
import { z } from 'zod';
import { transformLakeRecords } from '../shared/lake/firehose-transform.ts';
import { LAKE_TABLE_NAMES } from '../shared/lake/lake-tables.ts';

/** The Firehose transform of one lake table's delivery stream (LAKE_TABLE, set by lib/lake-stack.ts). */
const table = z.enum(LAKE_TABLE_NAMES).parse(process.env.LAKE_TABLE);

export const handler = async (event: FirehoseTransformationEvent) => transformLakeRecords(table, event);
