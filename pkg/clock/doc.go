// Package clock injects time so that expiry, quotas and windows are exact in tests.
package clock
