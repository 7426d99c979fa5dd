package vault

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxFileNameBytes caps the length of a file name derived from a title,
// without the ".md" extension.
const MaxFileNameBytes = 100

// SanitizeTitle turns a note title into a file name without extension, as
// create_node does (spec 000): lowercased, blanks become hyphens,
// characters illegal or special in file names or links (\ / : * ? " < > |
// # ^ [ ] and control characters) are removed, repeated hyphens collapse,
// leading and trailing hyphens and dots go (no hidden files), the result
// is cut to MaxFileNameBytes on a character boundary, a name Windows
// reserves (con, nul, com1, ...) gets "-note" appended, and an empty
// result is "untitled". The exact title is kept in the note's frontmatter
// when the file name no longer shows it.
func SanitizeTitle(title string) string {
	var b strings.Builder
	lastHyphen := false
	for _, r := range norm.NFC.String(strings.ToLower(title)) {
		switch {
		case unicode.IsSpace(r) || r == '-':
			if !lastHyphen {
				b.WriteByte('-')
				lastHyphen = true
			}
			continue
		case unicode.IsControl(r) || strings.ContainsRune(`\/:*?"<>|#^[]`, r):
			continue
		}
		b.WriteRune(r)
		lastHyphen = false
	}
	name := strings.Trim(b.String(), "-. ")
	if len(name) > MaxFileNameBytes {
		cut := MaxFileNameBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = strings.TrimRight(name[:cut], "-. ")
	}
	if name == "" {
		return "untitled"
	}
	if windowsReserved[strings.SplitN(name, ".", 2)[0]] {
		name += "-note"
	}
	return name
}

// windowsReserved are device names Windows refuses as file names.
var windowsReserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
}

// MaxTitleFileNameBytes caps the length of a file name that is the title
// (TitleFileName), without the ".md" extension: under the 255 bytes of
// the common file systems with room for ".md" and the " 1" Obsidian's
// trash adds to a name it holds already.
const MaxTitleFileNameBytes = 200

// refusedInFileNames are the characters no file name may hold on some OS
// (Windows refuses < > : " / \ | ? *; / is the separator everywhere) or
// that Obsidian refuses in a note's name because links use them (# ^ [ ]
// and |).
const refusedInFileNames = `*"\/<>:|?#^[]`

// TitleFileName turns a note title into a file name without extension,
// as Obsidian names a note after its title (naming.filename: title, the
// default): the title as written, in Unicode NFC, with each character a
// file name may not hold on some OS or that Obsidian refuses in note
// names (refusedInFileNames, control characters) replaced by "-", as
// Obsidian's Web Clipper does; blanks (tabs, line breaks) become one
// space; leading and trailing blanks and dots go (a leading dot would
// hide the note, a trailing one Windows drops); a name Windows reserves
// for a device (CON, nul.txt, COM1...) gets a leading "_"; the result is
// cut to MaxTitleFileNameBytes on a character boundary, and an empty one
// is "Untitled". The exact title goes to the note's frontmatter when the
// file name does not show it (docs/DECISIONS.md, "create_node").
func TitleFileName(title string) string {
	var b strings.Builder
	lastSpace := false
	for _, r := range norm.NFC.String(title) {
		switch {
		case unicode.IsSpace(r):
			if !lastSpace {
				b.WriteByte(' ')
				lastSpace = true
			}
			continue
		case unicode.IsControl(r) || isBidi(r) || r == utf8.RuneError || strings.ContainsRune(refusedInFileNames, r):
			r = '-'
		}
		b.WriteRune(r)
		lastSpace = false
	}
	name := trimName(b.String())
	if stem, _, _ := strings.Cut(name, "."); windowsReserved[strings.ToLower(strings.TrimRight(stem, " "))] {
		name = "_" + name
	}
	if len(name) > MaxTitleFileNameBytes {
		cut := MaxTitleFileNameBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = trimName(name[:cut])
	}
	if name == "" {
		return "Untitled"
	}
	return name
}

// trimName drops the blanks and dots a file name may not start or end
// with.
func trimName(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r == '.' || unicode.IsSpace(r) })
}

// File name styles (vault.Config.FileNames, the naming.filename setting).
const (
	// FileNamesTitle names a note's file after its title (TitleFileName),
	// as Obsidian does: the default.
	FileNamesTitle = "title"
	// FileNamesSlug names it after its title lowercased, with hyphens for
	// blanks (SanitizeTitle), vaultgraph's naming before issue 45.
	FileNamesSlug = "slug"
)

// fileNameFor is the file name (without ".md") a note titled title gets,
// in the vault's naming style, and the longest such a name may be.
func (m *Mirror) fileNameFor(title string) (string, int) {
	if m.cfg.FileNames == FileNamesSlug {
		return SanitizeTitle(title), MaxFileNameBytes
	}
	return TitleFileName(title), MaxTitleFileNameBytes
}
