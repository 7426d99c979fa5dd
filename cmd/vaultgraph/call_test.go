package main

import (
	"strings"
	"testing"
)

// A mistyped tool name is refused with the closest names, at most
// maxSuggestions of them, nearest first.
func TestCheckNameSuggestsTheClosest(t *testing.T) {
	names := []string{"get_node", "get_neighbors", "get_hubs", "search", "search_by_tags", "create_node", "memory_recall"}
	for _, tc := range []struct {
		name string
		want string // the error's suggestion; "" none, "-" no error
	}{
		{"get_node", "-"},
		{"get_ndoe", "did you mean get_node"},
		{"Get_Node", "did you mean get_node"},
		{"serch", "did you mean search?"},
		{"search_by_tag", "did you mean search_by_tags, search"},
		{"recall", "did you mean memory_recall"},
		{"frobnicate", ""},
	} {
		err := checkName(names, tc.name)
		switch {
		case tc.want == "-":
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
		case err == nil:
			t.Errorf("%s: accepted", tc.name)
		case tc.want == "" && strings.Contains(err.Error(), "did you mean"):
			t.Errorf("%s: %v, want no suggestion", tc.name, err)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
