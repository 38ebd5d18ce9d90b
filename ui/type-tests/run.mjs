// Shows that a wrong argument name fails `tsc`: compiles the UI with `wrong-argument-names.ts`
// (this folder's tsconfig.json) and with it left out (../tsconfig.json). With it, tsc must
// fail, on exactly the lines marked `expect TS<code>` and with those codes; without it, pass.
// Run by scripts/test.sh after the UI is built (`npm run test:types` in ui/).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ui = join(here, '..');
const tsc = join(ui, 'node_modules', 'typescript', 'bin', 'tsc');
const file = 'wrong-argument-names.ts';

/** Runs tsc over `project`: its exit status and its errors as `file(line): TScode` strings. */
function compile(project) {
  const run = spawnSync(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', project], {
    cwd: ui,
    encoding: 'utf8',
  });
  if (run.error) throw run.error;
  const errors = [...run.stdout.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+):/gm)].map(
    ([, path, line, code]) => `${relative(ui, join(ui, path)).replaceAll('\\', '/')}(${line}): ${code}`,
  );
  return { status: run.status, errors, output: run.stdout + run.stderr };
}

const expected = readFileSync(join(here, file), 'utf8')
  .split('\n')
  .flatMap((text, index) => {
    const mark = /\/\/ expect (TS\d+)\s*$/.exec(text);
    return mark ? [`type-tests/${file}(${index + 1}): ${mark[1]}`] : [];
  });

const failures = [];
if (expected.length === 0) failures.push(`${file} marks no line with "// expect TS<code>"`);

const withWrongNames = compile(join(here, 'tsconfig.json'));
if (withWrongNames.status === 0) failures.push(`tsc accepted ${file}: a wrong argument name compiles`);
const got = [...withWrongNames.errors].sort();
if (JSON.stringify(got) !== JSON.stringify([...expected].sort())) {
  failures.push(`tsc's errors with ${file}:\n  ${got.join('\n  ') || '(none)'}\nexpected:\n  ${expected.join('\n  ')}`);
}

const without = compile(join(ui, 'tsconfig.json'));
if (without.status !== 0) failures.push(`tsc fails without ${file}:\n${without.output}`);

if (failures.length > 0) {
  console.error(`type test failed:\n${failures.join('\n')}`);
  process.exit(1);
}
console.log(`type test passed: ${expected.length} wrong argument names refused by tsc (${expected.map((e) => e.split(': ')[1]).join(', ')}), the UI compiles without them`);
