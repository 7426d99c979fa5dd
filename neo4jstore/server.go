package neo4jstore

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/neo4j/neo4j-go-driver/v5/neo4j"
)

// Why Open refuses a server, for callers that say so (status, doctor,
// migrate): errors.Is(err, ErrAuthFailed) and so on.
var (
	// ErrAuthFailed: the server refused the user and password.
	ErrAuthFailed = errors.New("authentication failed")
	// ErrNotBolt: something answers at the URI's address, but not Bolt
	// (an HTTP port, another service), or nothing answers the handshake.
	ErrNotBolt = errors.New("not a Bolt server")
	// ErrServerTooOld: the server is older than MinServerVersion.
	ErrServerTooOld = errors.New("Neo4j server too old")
)

// MinServerVersion is the oldest Neo4j the store's Cypher runs on: the
// statements use OPTIONAL CALL and scoped subqueries (CALL (x) { ... }),
// both new in Neo4j 5.24.
const MinServerVersion = "5.24"

// minMajor and minMinor are MinServerVersion parsed.
const minMajor, minMinor = 5, 24

// checkServerVersion returns an error wrapping ErrServerTooOld when
// version (dbms.components' "5.26.0", "5.24.0-aura", "2025.01.0") is
// older than MinServerVersion. A version it cannot read passes: the
// server has the last word when a statement runs. Calendar versions
// (2025.01 and later) came after 5.26.
func checkServerVersion(version string) error {
	major, minor, ok := parseVersion(version)
	if !ok || major > minMajor || major == minMajor && minor >= minMinor {
		return nil
	}
	return fmt.Errorf("%w: it runs Neo4j %s, vaultgraph needs %s or later (its Cypher uses OPTIONAL CALL and CALL (x) { } subqueries); upgrade the server", ErrServerTooOld, version, MinServerVersion)
}

// parseVersion reads the major and minor numbers of a Neo4j version.
func parseVersion(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	digits := func(s string) (int, bool) {
		end := 0
		for end < len(s) && s[end] >= '0' && s[end] <= '9' {
			end++
		}
		n, err := strconv.Atoi(s[:end])
		return n, err == nil
	}
	major, ok1 := digits(parts[0])
	minor, ok2 := digits(parts[1])
	return major, minor, ok1 && ok2
}

// serverVersion reads the server's version with dbms.components.
func (s *Neo4jStore) serverVersion(ctx context.Context) (version, edition string, err error) {
	err = s.read(ctx, "server version", func(t txn) error {
		records, err := t.collect(stmtStatusComponents, nil)
		if err != nil {
			return err
		}
		for _, r := range records {
			if str(r.Values[0]) == "Neo4j Kernel" {
				version, edition = str(r.Values[1]), str(r.Values[2])
			}
		}
		return nil
	})
	return version, edition, err
}

// handshakeTimeout bounds the Bolt handshake Open tries before the
// driver's: a port that accepts connections but never answers Bolt is
// reported as such within it, not after the call's timeout.
const handshakeTimeout = 3 * time.Second

// boltMagic and the four versions offered (5.0-5.8, 4.4, none, none):
// what a driver sends first.
var boltHandshake = []byte{
	0x60, 0x60, 0xB0, 0x17,
	0, 8, 8, 5,
	0, 0, 4, 4,
	0, 0, 0, 0,
	0, 0, 0, 0,
}

// checkBolt opens one connection to the URI's address and runs the Bolt
// handshake (over TLS for the +s and +ssc schemes), bounded by
// handshakeTimeout. A refused connection or an unknown host is not its
// business (the driver says those well): it returns an error wrapping
// ErrNotBolt only when something answers, or keeps silent, without Bolt.
func checkBolt(ctx context.Context, uri string, tlsConf *tls.Config) error {
	err := handshake(ctx, uri, tlsConf, handshakeTimeout)
	if errors.Is(err, ErrNotBolt) {
		return err
	}
	return nil
}

// handshake is checkBolt's work: nil when a fresh connection to the URI's
// address gets a Bolt handshake answer within bound, an error wrapping
// ErrNotBolt when something else answers or nothing does, and the dial's
// error when no connection could be made.
func handshake(ctx context.Context, uri string, tlsConf *tls.Config, bound time.Duration) error {
	u, err := url.Parse(uri)
	if err != nil {
		return err
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "7687")
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return err
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	notBolt := func(why string) error {
		return fmt.Errorf("%w at %s: %s (is the URI's port the Bolt port, usually 7687?)", ErrNotBolt, host, why)
	}
	switch {
	case strings.HasSuffix(u.Scheme, "+s"), strings.HasSuffix(u.Scheme, "+ssc"):
		conf := tlsConf.Clone()
		if conf == nil {
			conf = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		conf.ServerName = u.Hostname()
		conf.InsecureSkipVerify = conf.InsecureSkipVerify || strings.HasSuffix(u.Scheme, "+ssc")
		tc := tls.Client(conn, conf)
		if err := tc.HandshakeContext(ctx); err != nil {
			var certErr *tls.CertificateVerificationError
			if errors.As(err, &certErr) || ctx.Err() == nil && !isTimeout(err) {
				return err // a TLS server that we refuse: the driver says why
			}
			return notBolt("no TLS handshake within " + bound.String())
		}
		conn = tc
	}
	if _, err := conn.Write(boltHandshake); err != nil {
		return err
	}
	var reply [4]byte
	n, err := io.ReadFull(conn, reply[:])
	switch {
	case isTimeout(err):
		return notBolt("no answer to the Bolt handshake within " + bound.String())
	case err != nil && n == 0:
		return notBolt("the connection was closed at the Bolt handshake")
	case err != nil:
		return notBolt(fmt.Sprintf("%q is not a Bolt handshake reply", reply[:n]))
	case string(reply[:]) == "HTTP":
		return notBolt("an HTTP server answered (Neo4j's HTTP port is usually 7474)")
	case binary.BigEndian.Uint32(reply[:]) == 0:
		return fmt.Errorf("%w at %s: the server offers none of the Bolt versions 4.4 to 5.8 (Neo4j %s or later is needed)", ErrNotBolt, host, MinServerVersion)
	case reply[0] != 0:
		return notBolt(fmt.Sprintf("% x is not a Bolt handshake reply", reply[:]))
	}
	return nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}

// authFailed reports whether the server refused the credentials.
func authFailed(err error) bool {
	var dbErr *neo4j.Neo4jError
	if errors.As(err, &dbErr) {
		return strings.HasPrefix(dbErr.Code, "Neo.ClientError.Security.Unauthorized") ||
			strings.HasPrefix(dbErr.Code, "Neo.ClientError.Security.AuthenticationRateLimit") ||
			strings.HasPrefix(dbErr.Code, "Neo.ClientError.Security.CredentialsExpired")
	}
	var invalid *neo4j.InvalidAuthenticationError
	return errors.As(err, &invalid)
}

// Problem names, in a few words, why err kept a store from opening:
// "authentication failed", "not a Bolt server", "Neo4j server too old",
// or "unreachable". For the first word of status's and doctor's lines.
func Problem(err error) string {
	for _, known := range []error{ErrAuthFailed, ErrNotBolt, ErrServerTooOld} {
		if errors.Is(err, known) {
			return known.Error()
		}
	}
	return "unreachable"
}
