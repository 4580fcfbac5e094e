import { readFile } from 'node:fs/promises';
import { type HistorySource, ImportRefusedError } from './import-history.ts';

/** A history file on local disk (`admin import --file`). */
export function historyFile(path: string): HistorySource {
  return {
    name: path,
    readText: async () => {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        throw new ImportRefusedError(`cannot read ${path}: ${(error as Error).message}`, [], {
          cause: error,
        });
      }
    },
  };
}
