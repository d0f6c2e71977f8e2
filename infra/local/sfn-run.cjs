// Runs one Step Functions execution with aws-local-stepfunctions and prints
// its outcome as one JSON line: {"status":"SUCCEEDED","output":...} or
// {"status":"FAILED","error":"<Error>","cause":"<Cause>"}, the fields
// DescribeExecution reports. Lambda tasks call the Invoke API named by
// AWS_ENDPOINT_URL_LAMBDA (the stand-in, infra/local/lambdastub).
//
//   node sfn-run.cjs NODE_MODULES DEFINITION_FILE INPUT_JSON CONTEXT_JSON
//
// Task states whose Resource is a Lambda function ARN are invoked here
// rather than by the library, so errors reach Retry and Catch as Step
// Functions names them: a function error as its errorType with the error
// document (JSON) as Cause — the library would give "type: message" — and
// a failed invocation as Lambda.<exception>.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const lambdaARN = /^arn:aws[a-z-]*:lambda:[^:]+:[0-9]+:function:[^:]+(:[^:]+)?$/;

function lambdaTasks(definition, modules) {
  const { LambdaClient, InvokeCommand } = require(path.join(modules, "@aws-sdk", "client-lambda"));
  const client = new LambdaClient({});
  const handlers = {};
  for (const [name, state] of Object.entries(definition.States || {})) {
    if (state.Type !== "Task" || !lambdaARN.test(state.Resource || "")) continue;
    handlers[name] = async (input) => {
      let out;
      try {
        out = await client.send(new InvokeCommand({ FunctionName: state.Resource, Payload: Buffer.from(JSON.stringify(input)) }));
      } catch (err) {
        const e = new Error(err.message);
        e.name = err.$fault ? "Lambda." + (err.name || "ServiceException") : "Lambda.SdkClientException";
        throw e;
      }
      const text = out.Payload ? Buffer.from(out.Payload).toString("utf8") : "null";
      if (out.FunctionError) {
        let type = "Lambda.Unknown";
        try {
          type = JSON.parse(text).errorType || type;
        } catch (_) {}
        const e = new Error(text);
        e.name = type;
        throw e;
      }
      return JSON.parse(text);
    };
  }
  return handlers;
}

async function main() {
  const [modules, definitionFile, input, context] = process.argv.slice(2);
  const { StateMachine, ExecutionError } = require(path.join(modules, "aws-local-stepfunctions"));
  const definition = JSON.parse(fs.readFileSync(definitionFile, "utf8"));
  const machine = new StateMachine(definition, {});
  const execution = machine.run(JSON.parse(input), {
    context: JSON.parse(context),
    overrides: { taskResourceLocalHandlers: lambdaTasks(definition, modules) },
  });
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
