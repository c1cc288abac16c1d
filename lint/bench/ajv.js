// ajv.js is the JavaScript side of `make bench` (lint/internal/devcmd/lintbench):
// ajv 8 (with ajv-formats 3, installed by scripts/tools/ajv.sh) compiles a
// JSON Schema once (draft 2020-12, as `agentlint schema export` writes,
// or draft-07, as seed 004's cue/collector.schema.json), then validates
// every line of a JSON Lines file, read in 1 MiB chunks, and prints
// {"lines":N,"invalid":M,"seconds":S} (S: reading, parsing and validating,
// after compilation).
//
//	node lint/bench/ajv.js AJV_DIR SCHEMA FILE
"use strict";
const fs = require("fs");
const path = require("path");
const [ajvDir, schemaFile, file] = process.argv.slice(2).map((p) => path.resolve(p));
const schema = JSON.parse(fs.readFileSync(schemaFile, "utf8"));
const draft2020 = String(schema.$schema || "").includes("2020-12");
const Ajv = require(path.join(ajvDir, "node_modules", "ajv", draft2020 ? "dist/2020" : ""));
const addFormats = require(path.join(ajvDir, "node_modules", "ajv-formats"));
const ajv = new Ajv({ allErrors: false, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

const start = process.hrtime.bigint();
const fd = fs.openSync(file, "r");
const chunk = Buffer.alloc(1 << 20);
let rest = Buffer.alloc(0);
let lines = 0, invalid = 0;
function line(buf) {
  if (buf.length === 0) return;
  lines++;
  let doc;
  try {
    doc = JSON.parse(buf.toString("utf8"));
  } catch (e) {
    invalid++;
    return;
  }
  if (!validate(doc)) invalid++;
}
for (;;) {
  const n = fs.readSync(fd, chunk, 0, chunk.length, null);
  if (n === 0) break;
  let buf = rest.length ? Buffer.concat([rest, chunk.subarray(0, n)]) : chunk.subarray(0, n);
  let i = 0;
  for (let j = buf.indexOf(10, i); j >= 0; j = buf.indexOf(10, i)) {
    line(buf.subarray(i, j));
    i = j + 1;
  }
  rest = Buffer.from(buf.subarray(i));
}
line(rest);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(JSON.stringify({ lines, invalid, seconds }) + "\n");
