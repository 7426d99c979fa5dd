package main

import (
	"debug/buildinfo"
	"fmt"
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
	Comment               string            `json:"comment,omitempty"`
	ExternalRefs          []spdxExternalRef `json:"externalRefs"`
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

// sbom builds the SPDX document of the binary at path. version is the
// release's semantic version (with "v"), used for the main module since a
// binary built with -buildvcs=false records "(devel)"; created is the
// commit time, so the document is the same on every build of a commit.
func sbom(path, docName, namespace, version string, created time.Time) (spdxDocument, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return spdxDocument{}, fmt.Errorf("sbom: %w", err)
	}
	doc := spdxDocument{
		SPDXVersion:       "SPDX-2.3",
		DataLicense:       "CC0-1.0",
		SPDXID:            "SPDXRef-DOCUMENT",
		Name:              docName,
		DocumentNamespace: namespace,
		CreationInfo: spdxCreationInfo{
			Created:  created.UTC().Format(time.RFC3339),
			Creators: []string{"Tool: vaultgraph scripts/dist", "Tool: " + bi.GoVersion},
		},
	}
	pkg := func(id, name, ver, purpose, comment string) spdxPackage {
		return spdxPackage{
			Name: name, SPDXID: id, VersionInfo: ver,
			DownloadLocation: noAssertion, LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
			PrimaryPackagePurpose: purpose, Comment: comment,
			ExternalRefs: []spdxExternalRef{{ReferenceCategory: "PACKAGE-MANAGER", ReferenceType: "purl", ReferenceLocator: "pkg:golang/" + name + "@" + ver}},
		}
	}
	main := pkg("SPDXRef-Package-main", bi.Main.Path, version, "APPLICATION", "the vaultgraph binary, built by "+bi.GoVersion)
	main.DownloadLocation = "git+" + repoURL + "@" + version
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
	return doc, nil
}
