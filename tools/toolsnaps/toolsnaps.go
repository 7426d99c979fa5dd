// Package toolsnaps compares a tool's published contract (name,
// description, input schema, output schema, annotations) with a snapshot file in the
// toolset's __toolsnaps__ folder, so that every change to a contract is a
// reviewed diff. Run the tests with UPDATE_TOOLSNAPS=true to rewrite the
// snapshots; a missing snapshot fails otherwise.
package toolsnaps

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// Dir is the snapshot folder, relative to the test's package directory.
const Dir = "__toolsnaps__"

// Snapshot is what a snapshot file holds.
type Snapshot struct {
	Name         string             `json:"name"`
	Description  string             `json:"description"`
	InputSchema  json.RawMessage    `json:"inputSchema"`
	OutputSchema json.RawMessage    `json:"outputSchema,omitempty"`
	Annotations  mcp.ToolAnnotation `json:"annotations"`
}

// Of returns the snapshot of tool as indented JSON.
func Of(tool mcp.Tool) ([]byte, error) {
	// Marshal the whole tool first: that is what tools/list publishes,
	// including a RawInputSchema or RawOutputSchema when the tool has one.
	raw, err := json.Marshal(tool)
	if err != nil {
		return nil, fmt.Errorf("toolsnaps: marshal %s: %w", tool.Name, err)
	}
	var published struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(raw, &published); err != nil {
		return nil, fmt.Errorf("toolsnaps: read back %s: %w", tool.Name, err)
	}
	snap := Snapshot{Name: tool.Name, Description: tool.Description, InputSchema: published.InputSchema,
		OutputSchema: published.OutputSchema, Annotations: tool.Annotations}
	out, err := json.MarshalIndent(snap, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("toolsnaps: marshal snapshot %s: %w", tool.Name, err)
	}
	return append(out, '\n'), nil
}

// Path returns the snapshot file of the tool named name.
func Path(name string) string { return filepath.Join(Dir, name+".snap") }

// Test compares tool with its snapshot, ignoring object key order. With
// UPDATE_TOOLSNAPS=true it writes the snapshot instead.
func Test(t *testing.T, tool mcp.Tool) {
	t.Helper()
	got, err := Of(tool)
	if err != nil {
		t.Fatal(err)
	}
	path := Path(tool.Name)
	if os.Getenv("UPDATE_TOOLSNAPS") == "true" {
		if err := os.MkdirAll(Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		t.Fatalf("snapshot %s is missing: run the tests with UPDATE_TOOLSNAPS=true and review the new file", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	equal, err := EqualJSON(got, want)
	if err != nil {
		t.Fatalf("snapshot %s: %v", path, err)
	}
	if !equal {
		t.Errorf("tool %s differs from %s (run with UPDATE_TOOLSNAPS=true if the change is intended)\n--- published\n%s\n--- snapshot\n%s", tool.Name, path, got, want)
	}
}

// EqualJSON reports whether a and b hold the same JSON value, whatever the
// order of object keys (array order counts).
func EqualJSON(a, b []byte) (bool, error) {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return false, fmt.Errorf("decode first: %w", err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return false, fmt.Errorf("decode second: %w", err)
	}
	return reflect.DeepEqual(va, vb), nil
}
