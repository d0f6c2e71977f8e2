// Package errs gives the service one error vocabulary: a Kind that the HTTP
// layer maps to a status and the spec's body shape, wrapped with the
// operation that failed (upspin-style E(op, kind, ...)).
//
// Only Detail, Code and Fields are ever shown to a client; the wrapped
// cause is for logs.
package errs
