import { open, stat } from 'node:fs/promises';
import { type HistorySource, ImportRefusedError } from './import-history.ts';

/** A history file on local disk (`admin import --file`), read as a stream from any byte offset. */
export function historyFile(path: string): HistorySource {
  return {
    name: path,
    describe: async () => {
      const stats = await stat(path).catch(refuse);
      return { bytes: stats.size, version: stats.mtime.toISOString() };
    },
    read: async (fromByte) => {
      const file = await open(path).catch(refuse);
      return file.createReadStream({ start: fromByte });
    },
  };

  function refuse(error: Error): never {
    throw new ImportRefusedError(`cannot read ${path}: ${error.message}`, [], { cause: error });
  }
}
