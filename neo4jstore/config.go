package neo4jstore

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	"github.com/vaultgraph/vaultgraph/internal/neo4jdefaults"
)

// Defaults applied by Open to zero Config fields.
const (
	// DefaultMaxConnections caps the pool: the configuration's default
	// (neo4j.max_connections), from one place.
	DefaultMaxConnections = neo4jdefaults.MaxConnections
	// DefaultTimeout bounds one store call when its context has no earlier
	// deadline: the configuration's default (neo4j.timeout).
	DefaultTimeout = neo4jdefaults.Timeout
	// DefaultMaxRetryTime bounds how long a managed transaction retries
	// transient failures. Shorter than the driver's 30 s so that tools
	// answer a provider error promptly while Neo4j is down.
	DefaultMaxRetryTime = 5 * time.Second
	// DefaultConnectTimeout bounds opening one TCP connection.
	DefaultConnectTimeout = 5 * time.Second
	// DefaultVectorDimensions matches the default local embedding model.
	DefaultVectorDimensions = 384
	// DefaultVectorCache is how many note vectors of one project a process
	// mirrors for exact search (see mirror.go): 250 MiB at 256 dimensions.
	DefaultVectorCache = 250_000
)

// Config says how to reach Neo4j. Zero fields take the defaults above.
type Config struct {
	// URI is the server address: neo4j://host:7687 (routing, clusters and
	// Aura; neo4j+s:// with TLS) or bolt://host:7687 (one server).
	URI string
	// User and Password authenticate with basic auth; an empty User
	// connects without authentication.
	User     string
	Password string
	// Database names the database to use; "" is the server's default.
	Database string
	// MaxConnections caps the driver's connection pool.
	MaxConnections int
	// Timeout bounds one store call (and is sent as the server-side
	// transaction timeout) unless the caller's context ends sooner.
	Timeout time.Duration
	// MaxRetryTime bounds the driver's retries of transient failures
	// (leader changes, deadlocks, a server restarting) within one call.
	MaxRetryTime time.Duration
	// ConnectTimeout bounds opening one connection.
	ConnectTimeout time.Duration
	// VectorDimensions is the size of note embeddings, used when the vector
	// index is first created.
	VectorDimensions int
	// VectorCache is the most note vectors of one project and model the
	// process mirrors in memory to search them exactly (4 bytes per
	// dimension each); a project with more is searched through Neo4j's
	// vector index. Negative: never mirror.
	VectorCache int
	// Lazy makes Open succeed when the server cannot be reached: the
	// store then connects and migrates at its first call that finds the
	// server up (trying at most once per LazyRetryInterval; calls in
	// between fail at once with the last provider error). A server that
	// answers but refuses (credentials, a missing database) still fails
	// Open. For long-running processes that must start while Neo4j is down.
	Lazy bool
	// ReadOnlySchema makes Open connect without applying schema
	// migrations: for `vaultgraph status` and `doctor`, which report
	// pending migrations and must never write to a team's database. Only
	// Status is meant to be called on such a store.
	ReadOnlySchema bool
	// ProbeInterval is how often the store probes a server that stopped
	// answering (see breaker.go); calls fail at once in between.
	ProbeInterval time.Duration
	// TLSCAFile is a PEM file of the certificate authorities trusted for
	// the +s schemes (neo4j+s://, bolt+s://) besides the system's: for a
	// server whose certificate a private CA signed. Empty: the system's.
	TLSCAFile string
	// Observer hears of statements, sessions and the server's health, for
	// metrics; nil: nothing listens.
	Observer Observer
	// Logger receives the store's few log lines; nil discards them.
	Logger *slog.Logger
}

// LazyRetryInterval is how often a Lazy store that is not ready yet tries
// to reach its server again.
const LazyRetryInterval = time.Second

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.MaxConnections == 0 {
		c.MaxConnections = DefaultMaxConnections
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxRetryTime == 0 {
		c.MaxRetryTime = DefaultMaxRetryTime
	}
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = DefaultConnectTimeout
	}
	if c.VectorDimensions == 0 {
		c.VectorDimensions = DefaultVectorDimensions
	}
	if c.VectorCache == 0 {
		c.VectorCache = DefaultVectorCache
	}
	if c.ProbeInterval == 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.Observer == nil {
		c.Observer = nopObserver{}
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// validate reports every problem of c (after defaults) at once.
func (c Config) validate() error {
	var errs []error
	if c.URI == "" {
		errs = append(errs, errors.New("URI is empty (e.g. bolt://localhost:7687)"))
	} else if u, err := url.Parse(c.URI); err != nil || !knownScheme(u.Scheme) {
		errs = append(errs, fmt.Errorf("URI %q must start with neo4j://, neo4j+s://, neo4j+ssc://, bolt://, bolt+s:// or bolt+ssc://", c.URI))
	}
	if c.MaxConnections < 0 {
		errs = append(errs, fmt.Errorf("MaxConnections must be positive, got %d", c.MaxConnections))
	}
	if c.Timeout < 0 || c.MaxRetryTime < 0 || c.ConnectTimeout < 0 || c.ProbeInterval < 0 {
		errs = append(errs, errors.New("timeouts must not be negative"))
	}
	if c.VectorDimensions < 1 || c.VectorDimensions > 4096 {
		errs = append(errs, fmt.Errorf("VectorDimensions must be in 1..4096, got %d", c.VectorDimensions))
	}
	return errors.Join(errs...)
}

func knownScheme(s string) bool {
	switch s {
	case "neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc":
		return true
	}
	return false
}

// tlsConfig is the driver's TLS configuration: the system's CAs plus
// those of TLSCAFile; nil (the driver's default) without a file.
func (c Config) tlsConfig() (*tls.Config, error) {
	if c.TLSCAFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(c.TLSCAFile)
	if err != nil {
		return nil, fmt.Errorf("TLSCAFile: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("TLSCAFile %s holds no PEM certificate", c.TLSCAFile)
	}
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
