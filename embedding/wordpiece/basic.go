package wordpiece

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// splitWords is BERT's basic tokenisation: it calls emit with each word of
// text after cleaning, CJK splitting, accent stripping and lower-casing. A
// word is a run of characters between whitespace, or a single punctuation
// character or CJK ideograph. The slice passed to emit is reused: emit must
// not keep it.
//
// The steps follow tokenizers' BertNormalizer (clean, CJK, strip accents,
// lowercase) and BertPreTokenizer (split on whitespace, isolate
// punctuation). NFD is applied first rather than third: it neither creates
// nor removes control, whitespace or CJK characters, so the result is the
// same and ASCII text can skip it.
func splitWords(text string, emit func(word []byte)) {
	if !isASCII(text) {
		text = norm.NFD.String(text)
	}
	word := make([]byte, 0, 64)
	var single [utf8.UTFMax]byte
	flush := func() {
		if len(word) > 0 {
			emit(word)
			word = word[:0]
		}
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			i++
			switch asciiClass[c] {
			case classLetter:
				word = append(word, asciiLower[c])
			case classSpace:
				flush()
			case classPunct:
				flush()
				single[0] = c
				emit(single[:1])
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError || isOther(r) || unicode.Is(unicode.Mn, r):
			// Invalid UTF-8 decodes to U+FFFD, which BERT drops too.
		case unicode.IsSpace(r):
			flush()
		case isCJK(r) || unicode.IsPunct(r):
			flush()
			emit(utf8.AppendRune(single[:0], r))
		default:
			word = utf8.AppendRune(word, unicode.ToLower(r))
		}
	}
	flush()
}

// Classes of ASCII bytes for the fast path.
const (
	classLetter = iota // kept (letters, digits): lower-cased
	classSpace         // separates words
	classPunct         // a word of its own
	classDrop          // control characters: removed
)

var asciiClass, asciiLower = asciiTables()

func asciiTables() (class [utf8.RuneSelf]uint8, lower [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		b := byte(c)
		lower[c] = b
		if 'A' <= b && b <= 'Z' {
			lower[c] = b + 'a' - 'A'
		}
		switch {
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			class[c] = classSpace
		case b < 0x20 || b == 0x7f:
			// \v and \f are Unicode whitespace but also controls; the
			// cleaning step removes controls first.
			class[c] = classDrop
		case ('0' <= b && b <= '9') || ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z'):
			class[c] = classLetter
		default:
			// Every other printable ASCII character is punctuation to BERT
			// (Rust's is_ascii_punctuation), symbols such as $+<=>^`|~ too.
			class[c] = classPunct
		}
	}
	return class, lower
}

// isOther reports Unicode's "Other" categories Cc, Cf, Cn, Co and Cs, which
// BERT's cleaning removes.
func isOther(r rune) bool {
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z) // Cn: unassigned
}

// isCJK reports the CJK ideograph blocks BERT splits into single-character
// words (Hangul, Hiragana and Katakana are not among them).
func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) ||
		(r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) ||
		(r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) ||
		(r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) ||
		(r >= 0x2F800 && r <= 0x2FA1F)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
