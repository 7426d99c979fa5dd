package core

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameBytes is the longest file or folder name accepted, in bytes (the
// limit of common file systems).
const MaxNameBytes = 255

// CheckNewName checks one file or folder name that a tool is about to
// create, by the rule every toolset follows: a name that Windows, macOS,
// Linux and sync services (Obsidian Sync, iCloud, Dropbox) all accept and
// that a person reads as what it is. It refuses, with an error wrapping
// ErrInvalidPath that says what to change: an empty name, ".." or a
// leading dot (hidden), NUL and other control characters, bidirectional
// controls (a right-to-left override makes "txt.exe" read "exe.txt"),
// the characters < > : " / \ | ? *, a leading blank, a trailing blank or
// dot, names Windows reserves (CON, PRN, AUX, NUL, COM1–COM9, LPT1–LPT9,
// with or without an extension, in any letter case), and names over 255
// bytes. Names are compared and created in Unicode NFC (NormalizeName).
func CheckNewName(name string) error {
	bad := func(why string) error { return &InvalidPathError{Name: name, Why: why} }
	switch {
	case name == "":
		return bad("it is empty")
	case name == "." || name == "..":
		return bad("it is not a name")
	case strings.HasPrefix(name, "."):
		return bad("it starts with a dot (hidden names are not notes)")
	case !utf8.ValidString(name):
		return bad("it is not valid UTF-8")
	case len(name) > MaxNameBytes:
		return bad("it is longer than 255 bytes")
	case strings.HasPrefix(name, " ") || strings.HasPrefix(name, "\u3000"):
		return bad("it starts with a blank")
	case strings.HasSuffix(name, " ") || strings.HasSuffix(name, "."):
		return bad("it ends with a blank or a dot, which Windows drops")
	}
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return bad("it contains a control character")
		case isBidiControl(r):
			return bad("it contains an invisible text-direction character")
		case strings.ContainsRune(`<>:"/\|?*`, r):
			return bad(`it contains one of < > : " / \ | ? *`)
		}
	}
	stem, _, _ := strings.Cut(name, ".")
	if windowsReserved[strings.ToLower(strings.TrimRight(stem, " "))] {
		return bad("Windows reserves it for a device")
	}
	return nil
}

// NormalizeName returns name in Unicode NFC, the form names are created in
// (macOS and some sync services store decomposed names; both forms are one
// name to a person).
func NormalizeName(name string) string { return norm.NFC.String(name) }

// InvalidPathError is a name or path a tool refused; it matches
// ErrInvalidPath.
type InvalidPathError struct {
	Name string // the name at fault
	Why  string // what is wrong with it, for the caller
}

func (e *InvalidPathError) Error() string {
	return "the name " + quote(e.Name) + " is not allowed: " + e.Why
}

// Is makes an InvalidPathError match ErrInvalidPath, and so
// ErrInvalidArgument, as every invalid path does.
func (e *InvalidPathError) Is(target error) bool {
	return target == ErrInvalidPath || target == ErrInvalidArgument
}

func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x20 || r == 0x7f || isBidiControl(r) || r >= 0x80 && r < 0xa0 {
			b.WriteString("\\u")
			const hex = "0123456789abcdef"
			b.WriteByte(hex[r>>12&0xf])
			b.WriteByte(hex[r>>8&0xf])
			b.WriteByte(hex[r>>4&0xf])
			b.WriteByte(hex[r&0xf])
			continue
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func isBidiControl(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

var windowsReserved = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true, "com6": true, "com7": true, "com8": true, "com9": true,
	"com¹": true, "com²": true, "com³": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true, "lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
	"lpt¹": true, "lpt²": true, "lpt³": true,
}

// Slug turns a name into a slug: lowercase letters and digits, other runs
// of characters as one hyphen, no hyphen at either end ("Attention Is All
// You Need" -> "attention-is-all-you-need"); "" when the name has no
// letter or digit.
func Slug(name string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(name) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	return b.String()
}
