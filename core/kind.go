package core

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// NodeKind is what a node of the graph is: a markdown note, an attachment
// (any other file a note can link or embed: an image, a PDF) or a canvas
// (Obsidian's JSON Canvas, a ".canvas" file). A node's kind follows from
// its ID's extension (KindOf), so stores keep no field for it: a store
// that takes a node takes its kind with its ID (docs/DECISIONS.md,
// "Attachments and canvases are nodes").
type NodeKind string

// Node kinds (issue 45.2).
const (
	KindNote       NodeKind = "note"
	KindAttachment NodeKind = "attachment"
	KindCanvas     NodeKind = "canvas"
)

// fileTypes are the extensions (lower case) that make a file a node other
// than a note, with their MIME types: Obsidian's accepted file formats
// (help: "Accepted file formats") and common documents. Any other dot in
// a name is part of a note's name: [[v1.2 release]] links to
// "v1.2 release.md". A fixed table, not mime.TypeByExtension, whose answer
// depends on the machine's /etc/mime.types.
var fileTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".bmp": "image/bmp", ".svg": "image/svg+xml", ".webp": "image/webp", ".avif": "image/avif",
	".tif": "image/tiff", ".tiff": "image/tiff", ".ico": "image/vnd.microsoft.icon", ".heic": "image/heic",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".m4a": "audio/mp4", ".ogg": "audio/ogg",
	".flac": "audio/flac", ".3gp": "video/3gpp", ".webm": "video/webm", ".mp4": "video/mp4",
	".ogv": "video/ogg", ".mov": "video/quicktime", ".mkv": "video/x-matroska", ".avi": "video/x-msvideo",
	".pdf":    "application/pdf",
	".canvas": "application/json",
	".base":   "application/yaml", ".excalidraw": "application/json",
	".zip": "application/zip", ".csv": "text/csv", ".json": "application/json", ".txt": "text/plain",
	".html": "text/html", ".htm": "text/html",
	".doc":  "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xls":  "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".ppt":  "application/vnd.ms-powerpoint",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
	".odt":  "application/vnd.oasis.opendocument.text",
	".epub": "application/epub+zip",
}

// KindOf returns the kind of the node with id (or vault path): a canvas
// for ".canvas", an attachment for another extension of fileTypes, else a
// note (".md", and any ID without such an extension).
func KindOf(id string) NodeKind {
	ext := strings.ToLower(path.Ext(id))
	switch {
	case ext == ".md" || ext == "":
		return KindNote
	case ext == ".canvas":
		return KindCanvas
	case fileTypes[ext] != "":
		return KindAttachment
	}
	return KindNote
}

// IsFileNode reports whether a link target or path names a file that is a
// node of its own kind (KindOf is not KindNote).
func IsFileNode(p string) bool { return KindOf(p) != KindNote }

// MIMETypeOf returns the MIME type of the attachment or canvas with id (or
// vault path), "text/markdown" for a note.
func MIMETypeOf(id string) string {
	if KindOf(id) == KindNote {
		return "text/markdown"
	}
	return fileTypes[strings.ToLower(path.Ext(id))]
}

// FileNodeExtensions returns the extensions (lower case, with the dot,
// sorted) that make a file a node other than a note: a store that filters
// by kind in its query language (neo4jstore's random note) tests an ID's
// lower-cased end against them, which is KindOf's rule.
func FileNodeExtensions() []string {
	return slices.Sorted(maps.Keys(fileTypes))
}

// NoteHits returns hits without the attachments and canvases: what search
// answers (docs/DECISIONS.md, "random_node and search answer notes"). It
// returns hits itself when every hit is a note, else a new slice.
func NoteHits(hits []ScoredID) []ScoredID {
	i := slices.IndexFunc(hits, func(h ScoredID) bool { return IsFileNode(h.ID) })
	if i < 0 {
		return hits
	}
	out := slices.Clone(hits[:i])
	for _, h := range hits[i+1:] {
		if !IsFileNode(h.ID) {
			out = append(out, h)
		}
	}
	return out
}
