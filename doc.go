// Package relay holds repository-wide tests; the program is cmd/relay.
package relay
