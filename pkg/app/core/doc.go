// Package core is what every function shares, whatever its group: the
// configuration from the environment, the logger, the item store, the
// optional object store, identity (authentication), the catalog loader,
// and the base of the HTTP API. It links no engine: a group that needs
// search, recognition or the audio analysis adds them in its own package
// (pkg/app/searchapp, recognitionapp, soundtrackapp, ingestapp), which
// its Lambda main imports, so each function links only its own group
// (TestFunctionImports). Package app puts every group together for the
// devserver, the admin CLI and the tests, on the same constructors.
package core
