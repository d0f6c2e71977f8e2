// Package integration is the local AWS integration tier (DESIGN.md §7,
// issue 13): the real `bootstrap` binaries, built for this machine, run
// behind the Lambda stand-in (infra/local/lambdastub) on DynamoDB Local,
// versitygw and fauxqs, and the recognition state machine runs on
// aws-local-stepfunctions, all as template.yaml declares them.
//
// Its tests need the stand-ins started by infra/local/with-stack.sh; they
// skip with the reason outside it and fail under CI=true.
package integration
