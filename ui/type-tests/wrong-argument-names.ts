// Calls of commands with argument names their declarations do not have. Each line marked
// `expect TS<code>` must fail to compile with that error, and nothing else in the UI may fail
// (`run.mjs` checks both): this is what stops a command's renamed argument from reaching Rust.
// `call` and `startTask` have the types of `api/transport.ts`'s own (re-exported by `api.ts`).

import type { CallCommand, StartTask } from '../src/api';

declare const call: CallCommand;
declare const startTask: StartTask;

// Declared names compile.
void call('get_document', { id: 1 });
void startTask('import_sources', { corpus: 'c', sources: [] }, () => undefined);

// A name misspelt: TS2561 where TypeScript suggests the declared one, else TS2353.
void call('get_document', { idd: 1 }); // expect TS2353
void startTask('import_sources', { corpus: 'c', source: [] }, () => undefined); // expect TS2561
// A name the command does not take at all.
void call('get_document', { id: 1, collection: 'c' }); // expect TS2353
// An argument given to a command declared without any (its arguments are `Record<string, never>`).
void call('app_info', { verbose: true }); // expect TS2322
