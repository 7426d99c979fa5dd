package main

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SPDX 2.3 JSON, the subset an SBOM of a Go binary needs. The packages come
// from the build information the Go linker wrote into the binary (the
// modules actually linked, with their versions), which is what SBOM
// scanners read from Go binaries too.
type spdxDocument struct {
	SPDXVersion       string             `json:"spdxVersion"`
	DataLicense       string             `json:"dataLicense"`
	SPDXID            string             `json:"SPDXID"`
	Name              string             `json:"name"`
	DocumentNamespace string             `json:"documentNamespace"`
	CreationInfo      spdxCreationInfo   `json:"creationInfo"`
	Packages          []spdxPackage      `json:"packages"`
	Relationships     []spdxRelationship `json:"relationships"`
}

type spdxCreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	Name                  string            `json:"name"`
	SPDXID                string            `json:"SPDXID"`
	VersionInfo           string            `json:"versionInfo"`
	DownloadLocation      string            `json:"downloadLocation"`
	FilesAnalyzed         bool              `json:"filesAnalyzed"`
	LicenseConcluded      string            `json:"licenseConcluded"`
	LicenseDeclared       string            `json:"licenseDeclared"`
	CopyrightText         string            `json:"copyrightText"`
	PrimaryPackagePurpose string            `json:"primaryPackagePurpose,omitempty"`
	Checksums             []spdxChecksum    `json:"checksums,omitempty"`
	Comment               string            `json:"comment,omitempty"`
	ExternalRefs          []spdxExternalRef `json:"externalRefs"`
}

type spdxChecksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

type spdxExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

type spdxRelationship struct {
	SPDXElementID      string `json:"spdxElementId"`
	RelationshipType   string `json:"relationshipType"`
	RelatedSPDXElement string `json:"relatedSpdxElement"`
}

const noAssertion = "NOASSERTION"

// embeddedModel is the embedding model compiled into the binary
// (embedding/builtin), as the SBOM lists it.
type embeddedModel struct {
	ID      string `json:"id"`              // e.g. all-minilm-l6-v2-static256:13efd9de95ac
	Teacher string `json:"teacher"`         // the model it derives from
	SHA256  string `json:"model_sha256"`    // of model.bin
	Package string `json:"teacher_package"` // where the weights came from
	SPDX    string `json:"-"`               // detected from embedding/builtin/LICENSE
}

// modelDir is where the embedded model and its licence live.
const modelDir = "embedding/builtin"

// readModel reads the embedded model's manifest and detects its licence.
func readModel() (embeddedModel, error) {
	var m embeddedModel
	data, err := os.ReadFile(filepath.Join(modelDir, "manifest.json"))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s/manifest.json: %w", modelDir, err)
	}
	lic, err := os.ReadFile(filepath.Join(modelDir, "LICENSE"))
	if err != nil {
		return m, err
	}
	m.SPDX = detectLicense(lic)
	return m, nil
}

// sbom builds the SPDX document of the binary at path. version is the
// release's semantic version (with "v"), used for the main module since a
// binary built with -buildvcs=false records "(devel)"; created is the
// commit time, so the document is the same on every build of a commit.
// mods are the licences licenses found (the standard library first),
// mainLicense the project's, model the embedded model.
func sbom(path, docName, namespace, version string, created time.Time, mods []moduleLicense, mainLicense string, model embeddedModel) (spdxDocument, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return spdxDocument{}, fmt.Errorf("sbom: %w", err)
	}
	declared := map[string]string{}
	for _, m := range mods {
		declared[m.Path+"@"+m.Version] = m.SPDX
	}
	doc := spdxDocument{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              docName,
		DocumentNamespace: namespace,
		CreationInfo: spdxCreationInfo{
			Created:  created.UTC().Format(time.RFC3339),
			Creators: []string{"Tool: vaultgraph scripts/dist", "Tool: " + bi.GoVersion, "Tool: github.com/google/licensecheck"},
		},
	}
	pkg := func(id, name, ver, purpose, comment string) spdxPackage {
		return spdxPackage{
			Name: name, SPDXID: id, VersionInfo: ver,
			DownloadLocation: noAssertion, LicenseConcluded: noAssertion,
			LicenseDeclared: orNoAssertion(declared[name+"@"+ver]), CopyrightText: noAssertion,
			PrimaryPackagePurpose: purpose, Comment: comment,
			ExternalRefs: []spdxExternalRef{{ReferenceCategory: "PACKAGE-MANAGER", ReferenceType: "purl", ReferenceLocator: "pkg:golang/" + name + "@" + ver}},
		}
	}
	main := pkg("SPDXRef-Package-main", bi.Main.Path, version, "APPLICATION", "the vaultgraph binary, built by "+bi.GoVersion)
	main.DownloadLocation = "git+" + repoURL + "@" + version
	main.LicenseDeclared = orNoAssertion(mainLicense)
	doc.Packages = append(doc.Packages, main)
	doc.Relationships = append(doc.Relationships, spdxRelationship{"SPDXRef-DOCUMENT", "DESCRIBES", main.SPDXID})
	link := func(p spdxPackage) {
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, spdxRelationship{main.SPDXID, "DEPENDS_ON", p.SPDXID})
	}
	std := pkg("SPDXRef-Package-stdlib", "stdlib", bi.GoVersion, "LIBRARY", "the Go standard library and runtime")
	std.DownloadLocation = "https://go.dev/dl/"
	link(std)
	for i, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		comment := ""
		if m.Sum != "" {
			comment = "go.sum " + m.Sum
		}
		if d.Replace != nil {
			comment = strings.TrimSpace("replaces " + d.Path + "@" + d.Version + "; " + comment)
		}
		link(pkg(fmt.Sprintf("SPDXRef-Package-go-%d", i+1), m.Path, m.Version, "LIBRARY", comment))
	}

	// The model is data compiled into the binary, not a Go module: the
	// binary CONTAINS it.
	mp := spdxPackage{
		Name: model.Teacher + " (" + model.ID + ")", SPDXID: "SPDXRef-Package-embedding-model", VersionInfo: model.ID,
		DownloadLocation: "https://huggingface.co/" + model.Teacher, LicenseConcluded: noAssertion,
		LicenseDeclared: orNoAssertion(model.SPDX), CopyrightText: noAssertion, PrimaryPackagePurpose: "OTHER",
		Comment: "the embedding model compiled into the binary (" + modelDir + "): a static distillation of " + model.Teacher +
			" (weights from " + model.Package + "); licence and notice in " + modelDir + "/LICENSE and NOTICE",
		Checksums:    []spdxChecksum{{Algorithm: "SHA256", ChecksumValue: model.SHA256}},
		ExternalRefs: []spdxExternalRef{{ReferenceCategory: "PACKAGE-MANAGER", ReferenceType: "purl", ReferenceLocator: "pkg:huggingface/" + model.Teacher}},
	}
	doc.Packages = append(doc.Packages, mp)
	doc.Relationships = append(doc.Relationships, spdxRelationship{main.SPDXID, "CONTAINS", mp.SPDXID})
	return doc, nil
}
