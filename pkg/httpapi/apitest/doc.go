// Package apitest drives an http.Handler in tests through a real HTTP
// server and validates every response it sees against infra/openapi.yaml,
// so the document and the code cannot drift apart unnoticed.
package apitest
