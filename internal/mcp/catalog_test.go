package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestNamespacesLookupAndWait(t *testing.T) {
	cfg := helperConfig(t)
	cfg.ToolExposure = []ToolRule{{"big", ExposureHidden}}
	described := helperConfig(t)
	described.Description = "Configured description"
	m := newTestManager(t, Entry{Name: "dev-tools", Config: cfg}, Entry{Name: "other", Config: described})
	s := m.Lookup("mcp__dev_tools")
	if s == nil || m.Lookup("dev_tools") != s || m.Lookup("mcp__dev-tools") != s || m.Lookup("dev-tools") != s || m.Lookup("nope") != nil {
		t.Fatal("lookup by namespace spellings")
	}
	// Wait starts a server that has not been started.
	if !s.Wait(context.Background(), time.Minute) {
		t.Fatalf("wait: %+v", s.Status())
	}
	m.Server("other").Wait(context.Background(), time.Minute)
	ns := m.Namespaces()
	if len(ns) != 2 {
		t.Fatalf("namespaces = %+v", ns)
	}
	if ns[0].Namespace != "mcp__dev_tools" || ns[0].Description != "Test helper server." || ns[0].State != StateConnected ||
		!strings.Contains(strings.Join(ns[0].Tools, ","), "mcp__dev_tools__echo") || strings.Contains(strings.Join(ns[0].Tools, ","), "__big") {
		t.Fatalf("dev-tools = %+v", ns[0])
	}
	if ns[1].Description != "Configured description" {
		t.Fatalf("other = %+v", ns[1])
	}
}
