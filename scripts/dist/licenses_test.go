package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetectLicense(t *testing.T) {
	for file, want := range map[string]string{
		"../../LICENSE":                            "Apache-2.0",
		"../../embedding/builtin/LICENSE":          "Apache-2.0",
		filepath.Join(runtimeGOROOT(t), "LICENSE"): "BSD-3-Clause",
	} {
		text, err := os.ReadFile(file)
		require.NoError(t, err)
		assert.Equal(t, want, detectLicense(text), file)
	}
	assert.Empty(t, detectLicense([]byte("All rights reserved. Ask us before using this.")))
	assert.True(t, isLicenseFile("LICENSE.md"))
	assert.True(t, isLicenseFile("COPYING"))
	assert.True(t, isLicenseFile("NOTICE.txt"))
	assert.True(t, isLicenseFile("LICENSE-MIT"))
	assert.True(t, isLicenseFile("license"))
	assert.False(t, isLicenseFile("README.md"))
	assert.False(t, isLicenseFile("license.go"))
	assert.False(t, isLicenseFile("license_test.go"))
}

func runtimeGOROOT(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// TestPackageCarriesLicencesAndTheSBOMDeclaresThem packages a real Go
// binary (this test binary, whose build information lists the modules it
// links, as the release binary's does) the way make dist packages a
// target, then reads the files back: the archive and the bundle carry the
// project's LICENSE and NOTICE, the model's, and the third-party notices
// with every module's licence text; the bundle's manifest names the
// licence; the SBOM declares the licence of at least 80 % of its packages
// and lists the embedded model.
func TestPackageCarriesLicencesAndTheSBOMDeclaresThem(t *testing.T) {
	bin, err := filepath.Abs(os.Args[0])
	require.NoError(t, err)
	t.Chdir("../..")
	sh, err := readSharedInputs()
	require.NoError(t, err)
	assert.Equal(t, "Apache-2.0", sh.license)
	assert.Equal(t, "Apache-2.0", sh.model.SPDX)

	o := options{out: t.TempDir(), goBin: "go"}
	r := release{version: "v0.2.0", commit: "0123456789ab", date: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)}
	files, bundle, err := packageTarget(o, r, sh, "linux", "amd64", bin)
	require.NoError(t, err)
	require.Len(t, files, 3)

	mustHave := []string{"LICENSE", "NOTICE", "THIRD_PARTY_NOTICES.txt", "embedding/builtin/LICENSE", "embedding/builtin/NOTICE"}
	for _, archive := range []string{files[0], bundle} {
		got := map[string][]byte{}
		for _, e := range readArchive(t, archive) {
			got[e.name] = e.data
		}
		for _, name := range mustHave {
			assert.Contains(t, got, name, "%s carries %s", filepath.Base(archive), name)
		}
		notices := string(got["THIRD_PARTY_NOTICES.txt"])
		for _, want := range []string{
			"stdlib " + runtime.Version() + ": BSD-3-Clause",
			"github.com/google/licensecheck v0.3.1: BSD-3-Clause",
			"--- LICENSE ---\n\nCopyright 2009 The Go Authors.",     // the standard library's text
			"--- LICENSE ---\n\nCopyright (c) 2019 The Go Authors.", // licensecheck's
		} {
			assert.True(t, strings.Contains(notices, want), "THIRD_PARTY_NOTICES.txt lacks %q", want)
		}
		assert.False(t, strings.Contains(notices, "--- license.go ---"), "source files are not licence files")
		if archive == bundle {
			var m Manifest
			require.NoError(t, json.Unmarshal(got["manifest.json"], &m))
			assert.Equal(t, "Apache-2.0", m.License)
		}
	}

	data, err := os.ReadFile(files[2])
	require.NoError(t, err)
	var doc spdxDocument
	require.NoError(t, json.Unmarshal(data, &doc))
	declared, model := 0, false
	for _, p := range doc.Packages {
		if p.LicenseDeclared != noAssertion {
			declared++
		}
		if p.SPDXID == "SPDXRef-Package-embedding-model" {
			model = true
			assert.Equal(t, "Apache-2.0", p.LicenseDeclared)
			assert.Contains(t, p.Name, "all-MiniLM-L6-v2")
			require.Len(t, p.Checksums, 1)
			assert.Len(t, p.Checksums[0].ChecksumValue, 64)
		}
	}
	assert.True(t, model, "the SBOM lists the embedded model")
	assert.GreaterOrEqual(t, declared*100, 80*len(doc.Packages), "%d of %d packages declare a licence", declared, len(doc.Packages))
	t.Logf("%d of %d packages declare a licence", declared, len(doc.Packages))
}
