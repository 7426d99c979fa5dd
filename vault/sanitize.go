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
