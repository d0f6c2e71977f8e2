package app

import (
	"musiccatalog/pkg/blob"
	"musiccatalog/pkg/store"
	"musiccatalog/pkg/workflow"
)

// Seams for tests: the permission test (TestLambdaSampleEvents, with
// permissions_test.go) decorates the ports every Deps is wired with, to
// record which table, object and state-machine calls each function's
// sample events make. In production they return their argument.
var (
	instrumentPorts    = func(st store.Store, bs blob.Store) (store.Store, blob.Store) { return st, bs }
	instrumentWorkflow = func(wf workflow.Starter) workflow.Starter { return wf }
)
