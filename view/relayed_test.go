package view_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/view"
)

// A relaying front's /view/: 503 that retries, naming the owner's pid, as
// a page that reloads itself and as the API's JSON error.
func TestRelayedNamesTheOwner(t *testing.T) {
	h := view.Relayed(4242)
	get := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		return w
	}
	page := get(view.PathPrefix)
	if page.Code != http.StatusServiceUnavailable || page.Header().Get("Refresh") != "10" || page.Header().Get("Retry-After") != "10" ||
		!strings.Contains(page.Body.String(), "(pid 4242)") || !strings.Contains(page.Body.String(), "reloads by itself") {
		t.Fatalf("page: %d %v\n%s", page.Code, page.Header(), page.Body)
	}
	api := get(view.PathPrefix + "api/overview")
	var body struct{ Error string }
	if api.Code != http.StatusServiceUnavailable || api.Header().Get("Content-Type") != "application/json" ||
		json.Unmarshal(api.Body.Bytes(), &body) != nil || !strings.Contains(body.Error, fmt.Sprintf("(pid %d)", 4242)) {
		t.Fatalf("api: %d %v\n%s", api.Code, api.Header(), api.Body)
	}
}
