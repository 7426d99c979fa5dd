package neo4jstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/vaultgraph/vaultgraph/integration/neo4jtest"
)

// A Neo4j of its own with authentication on and Bolt TLS signed by a
// private CA made here: a wrong password is "authentication failed" (not
// "unreachable"), and bolt+s:// connects when Config.TLSCAFile names the
// CA, and is refused by certificate verification when it does not.
func TestAuthAndPrivateCA(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	caFile := writeTestPKI(t, dir)
	const password = "vaultgraph-test-pw"
	srv := neo4jtest.StartLocal(t, neo4jtest.LocalOptions{Password: password, TLSDir: dir})
	_, port, err := net.SplitHostPort(srv.URI[len("bolt://"):])
	require.NoError(t, err)

	t.Run("wrong password", func(t *testing.T) {
		for _, ro := range []bool{true, false} {
			_, err := Open(t.Context(), Config{URI: srv.URI, User: "neo4j", Password: "not-the-password", ReadOnlySchema: ro, Lazy: !ro})
			require.ErrorIs(t, err, ErrAuthFailed)
			require.Equal(t, "authentication failed", Problem(err))
			require.Contains(t, err.Error(), "neo4j.password")
		}
	})
	t.Run("right password", func(t *testing.T) {
		s, err := Open(t.Context(), Config{URI: srv.URI, User: "neo4j", Password: password, ReadOnlySchema: true})
		require.NoError(t, err)
		require.NoError(t, s.Close(t.Context()))
	})
	tlsURI := "bolt+s://localhost:" + port
	t.Run("private CA", func(t *testing.T) {
		s, err := Open(t.Context(), Config{URI: tlsURI, User: "neo4j", Password: password, TLSCAFile: caFile, ReadOnlySchema: true})
		require.NoError(t, err)
		st, err := s.Status(t.Context())
		require.NoError(t, err)
		require.NotEmpty(t, st.ServerVersion)
		require.True(t, s.driver().IsEncrypted())
		require.NoError(t, s.Close(t.Context()))
	})
	t.Run("unknown CA", func(t *testing.T) {
		_, err := Open(t.Context(), Config{URI: tlsURI, User: "neo4j", Password: password, ReadOnlySchema: true, Timeout: 30 * time.Second})
		require.Error(t, err)
		require.Contains(t, err.Error(), "certificate")
	})
	t.Run("CA file without a certificate", func(t *testing.T) {
		bad := filepath.Join(dir, "empty.pem")
		require.NoError(t, os.WriteFile(bad, []byte("nothing"), 0o600))
		_, err := Open(t.Context(), Config{URI: tlsURI, TLSCAFile: bad})
		require.ErrorContains(t, err, "no PEM certificate")
	})
}

// writeTestPKI writes a CA (returned: its PEM file) and a server key and
// certificate for localhost signed by it, as Neo4j's SSL policy folder
// wants them: dir/private.key (PKCS#8) and dir/public.crt, with empty
// trusted/ and revoked/ folders.
func writeTestPKI(t *testing.T, dir string) string {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vaultgraph test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	require.NoError(t, err)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return p
	}
	write("private.key", "PRIVATE KEY", keyDER)
	write("public.crt", "CERTIFICATE", leafDER)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "trusted"), 0o700))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "revoked"), 0o700))
	return write("ca.pem", "CERTIFICATE", caDER)
}
