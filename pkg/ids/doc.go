// Package ids makes identifiers: random UUIDs for resources, opaque bearer
// tokens, deterministic name-based UUIDs, and 32-hex ids.
package ids
