// Runs the examples of the docs and compares what they print with what the
// docs show. A fenced block whose info string is `console` is an example:
// lines starting with "$ " are commands, the lines after each (up to the next
// command or the end of the block) its expected output (stdout and stderr).
// An expected line "..." matches any number of lines. All examples of one doc
// run in order in one shell, as a reader following it would: `cd` and files
// written by one block carry over to the next. The shell starts in a scratch
// folder holding a copy of examples/ and links to the repository's tests/ and
// rules/; `onnx-remap` is the binary under test.
//   node doc_examples.mjs BIN SOURCE_DIR WORK_DIR DOC...
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const [bin, src, work, ...docs] = process.argv.slice(2);
if (!docs.length) {
  console.error('usage: node doc_examples.mjs BIN SOURCE_DIR WORK_DIR DOC...');
  process.exit(2);
}

// [{line, command, expected: [..]}] of one markdown file.
function examples(file) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out = [];
  let inConsole = false;
  let fence = false;
  for (let i = 0; i < lines.length; ++i) {
    const l = lines[i];
    if (l.startsWith('```')) {
      if (!fence) {
        fence = true;
        inConsole = l.slice(3).trim() === 'console';
      } else {
        fence = inConsole = false;
      }
      continue;
    }
    if (!inConsole) continue;
    if (l.startsWith('$ ')) out.push({ line: i + 1, command: l.slice(2), expected: [] });
    else if (out.length) out[out.length - 1].expected.push(l);
  }
  return out;
}

// Does `actual` match `expected`, with "..." lines matching any run of lines?
function matches(expected, actual) {
  const memo = new Map();
  const go = (i, j) => {
    const key = i * 100000 + j;
    if (memo.has(key)) return memo.get(key);
    let r;
    if (i === expected.length) r = j === actual.length;
    else if (expected[i] === '...') r = go(i + 1, j) || (j < actual.length && go(i, j + 1));
    else r = j < actual.length && expected[i] === actual[j] && go(i + 1, j + 1);
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

let passed = 0;
let failed = 0;
for (const doc of docs) {
  const name = path.basename(doc, '.md');
  const root = path.join(work, name);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  fs.cpSync(path.join(src, 'examples'), path.join(root, 'examples'), { recursive: true });
  for (const link of ['tests', 'rules']) fs.symlinkSync(path.join(src, link), path.join(root, link));
  const list = examples(path.join(src, doc));
  // One script: each command's output to its own file, so a failing one does not stop the rest.
  let script = `set +e\nonnx-remap() { "${bin}" "$@"; }\nexport NO_COLOR=1\n`;
  list.forEach((ex, k) => {
    script += `{ ${ex.command}\n} > "${root}/.out.${k}" 2>&1\n`;
  });
  fs.writeFileSync(path.join(root, '.script.sh'), script + 'exit 0\n');
  execFileSync('bash', [path.join(root, '.script.sh')], { cwd: root, stdio: 'inherit' });
  list.forEach((ex, k) => {
    const actual = fs.readFileSync(path.join(root, `.out.${k}`), 'utf8').replace(/\n$/, '').split('\n').filter((l, i, a) => a.length > 1 || l !== '');
    const expected = ex.expected.filter((l, i, a) => i < a.length - 1 || l !== '');
    const label = `${doc}:${ex.line}: $ ${ex.command}`;
    if (matches(expected, actual)) {
      console.log(`PASS ${label}`);
      ++passed;
    } else {
      console.log(`FAIL ${label}\n  expected:\n${expected.map((l) => '    | ' + l).join('\n')}\n  actual:\n${actual.map((l) => '    | ' + l).join('\n')}`);
      ++failed;
    }
  });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed || !passed ? 1 : 0);
