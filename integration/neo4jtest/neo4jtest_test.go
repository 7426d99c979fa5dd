package neo4jtest_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"

	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

func TestMain(m *testing.M) { os.Exit(neo4jtest.Main(m)) }

func query(ctx context.Context, s *neo4jtest.Server, d neo4j.DriverWithContext, cypher string, params map[string]any) (*neo4j.EagerResult, error) {
	var opts []neo4j.ExecuteQueryConfigurationOption
	if s.Database != "" {
		opts = append(opts, neo4j.ExecuteQueryWithDatabase(s.Database))
	}
	return neo4j.ExecuteQuery(ctx, d, cypher, params, neo4j.EagerResultTransformer, opts...)
}

func TestServerVersion(t *testing.T) {
	s := neo4jtest.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := query(ctx, s, s.Driver(t), "CALL dbms.components() YIELD name, versions, edition RETURN name, versions[0] AS v, edition", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 1 {
		t.Fatalf("dbms.components(): %d records", len(res.Records))
	}
	v, _ := res.Records[0].Get("v")
	ed, _ := res.Records[0].Get("edition")
	t.Logf("server: %v %v", v, ed)
	if !strings.HasPrefix(v.(string), "5.26") {
		t.Fatalf("server version %v, want 5.26.x", v)
	}
	if s.Version != v {
		t.Fatalf("Server.Version %q != dbms.components() %q", s.Version, v)
	}
}

func TestWriteRead(t *testing.T) {
	s := neo4jtest.Get(t)
	s.Clean(t)
	d := s.Driver(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := query(ctx, s, d, "CREATE (:Probe {id: $id, at: datetime()})", map[string]any{"id": "write-read"}); err != nil {
		t.Fatal(err)
	}
	res, err := query(ctx, s, d, "MATCH (p:Probe {id: $id}) RETURN count(p) AS c", map[string]any{"id": "write-read"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res.Records[0].Get("c"); c != int64(1) {
		t.Fatalf("count = %v, want 1", c)
	}
	s.Clean(t)
	res, err = query(ctx, s, d, "MATCH (n) RETURN count(n) AS c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res.Records[0].Get("c"); c != int64(0) {
		t.Fatalf("after Clean count = %v, want 0", c)
	}
}

// A server with auth disabled must also accept basic-auth tokens, so code
// that always sends credentials works against the local launcher.
func TestBasicAuthAcceptedWhenAuthDisabled(t *testing.T) {
	s := neo4jtest.Get(t)
	if s.User != "" {
		t.Skip("server has auth enabled")
	}
	d, err := neo4j.NewDriverWithContext(s.URI, neo4j.BasicAuth("neo4j", "anything", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.VerifyConnectivity(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := query(ctx, s, d, "RETURN 1", nil); err != nil {
		t.Fatal(err)
	}
}

func TestStopStartKeepsData(t *testing.T) {
	s := neo4jtest.Get(t)
	s.Clean(t)
	d := s.Driver(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if _, err := query(ctx, s, d, "CREATE (:Durable {id: 'survives-restart'})", nil); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	if err := s.Stop(t); err != nil {
		t.Fatal(err)
	}
	t.Logf("stop took %s", time.Since(start))

	// A fresh driver, so no pooled connection can mask the outage.
	down, err := neo4j.NewDriverWithContext(s.URI, neo4j.NoAuth())
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close(context.Background())
	qctx, qcancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = query(qctx, s, down, "RETURN 1", nil)
	qcancel()
	if err == nil {
		t.Fatal("query succeeded while the server was stopped")
	}
	t.Logf("query while stopped failed as expected: %v", err)

	start = time.Now()
	if err := s.Start(t); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart took %s", time.Since(start))

	// The original driver must recover by itself: its pooled connections
	// died with the server, and ExecuteQuery retries on a new one.
	res, err := query(ctx, s, d, "MATCH (n:Durable {id: 'survives-restart'}) RETURN count(n) AS c", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := res.Records[0].Get("c"); c != int64(1) {
		t.Fatalf("after restart count = %v, want 1", c)
	}
}

// fatalRecorder stops at Fatalf as a test would, keeping the message.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// A server named by NEO4J_URI is the user's own: Clean refuses to empty it
// until the user says it is disposable, before it connects at all.
func TestCleanRefusesAUsersServerWithoutConsent(t *testing.T) {
	t.Setenv(neo4jtest.WipeConsentEnv, "")
	srv := &neo4jtest.Server{URI: "bolt://127.0.0.1:1", Source: neo4jtest.SourceEnv}
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Clean(rec)
	}()
	<-done
	if !strings.Contains(rec.msg, neo4jtest.WipeConsentEnv+"=1") || !strings.Contains(rec.msg, "delete every node") {
		t.Fatalf("Clean on a NEO4J_URI server without consent: %q, want a refusal naming %s", rec.msg, neo4jtest.WipeConsentEnv)
	}
}
