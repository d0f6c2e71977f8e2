// Runs one Step Functions execution with aws-local-stepfunctions and prints
// its outcome as one JSON line: {"status":"SUCCEEDED","output":...} or
// {"status":"FAILED","error":"<Error>","cause":"<Cause>"}, the fields
// DescribeExecution reports. Lambda tasks call the Invoke API named by
// AWS_ENDPOINT_URL_LAMBDA (the stand-in, infra/local/lambdastub).
//
//   node sfn-run.cjs NODE_MODULES DEFINITION_FILE INPUT_JSON CONTEXT_JSON
"use strict";
const fs = require("node:fs");
const path = require("node:path");

async function main() {
  const [modules, definitionFile, input, context] = process.argv.slice(2);
  const { StateMachine, ExecutionError } = require(path.join(modules, "aws-local-stepfunctions"));
  const definition = JSON.parse(fs.readFileSync(definitionFile, "utf8"));
  const machine = new StateMachine(definition, {});
  const execution = machine.run(JSON.parse(input), { context: JSON.parse(context) });
  try {
    const output = await execution.result;
    process.stdout.write(JSON.stringify({ status: "SUCCEEDED", output: output ?? null }) + "\n");
  } catch (err) {
    // An execution error wraps the error that ended the run: a Fail
    // state's Error/Cause, or the uncaught error of a state.
    const cause = err instanceof ExecutionError && err.cause ? err.cause : err;
    let text = cause.cause ?? cause.message ?? String(cause);
    if (typeof text !== "string") text = JSON.stringify(text);
    process.stdout.write(JSON.stringify({ status: "FAILED", error: cause.name ?? "Error", cause: text }) + "\n");
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
