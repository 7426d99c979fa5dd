package tools

import (
	"strconv"
	"unicode/utf8"
)

// JSONAppender is an answer type that encodes itself: AppendJSON appends
// exactly what EncodeJSON's encoding/json encoder writes for it (compact,
// no HTML escaping), without reflection. The read tools' answers are
// mostly note content, and encoding them through reflection was a third
// of a get_node depth=1 call. Each implementation is checked byte for
// byte against encoding/json by its package's tests.
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// AppendJSONString appends s as a JSON string, byte for byte as
// encoding/json writes it with HTML escaping off: ", \ and control
// characters escaped (\b \f \n \r \t by name), U+2028 and U+2029 escaped,
// each byte of invalid UTF-8 replaced by \ufffd, everything else as it is.
//
// It reads eight bytes at a time and stops only at a word holding a byte
// that needs a look (a control character, ", \, or any non-ASCII byte),
// checking UTF-8 as it goes: an answer is mostly plain text, and the
// tools' text form of an answer is its JSON escaped once more, so this is
// most of what encoding an answer costs.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start, i := 0, 0
	for i < len(s) {
		for i+8 <= len(s) && !needsLook(uint64(s[i])|uint64(s[i+1])<<8|uint64(s[i+2])<<16|uint64(s[i+3])<<24|
			uint64(s[i+4])<<32|uint64(s[i+5])<<40|uint64(s[i+6])<<48|uint64(s[i+7])<<56) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedASCII(dst, c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// needsLook reports whether any byte of the little-endian word w is < 0x20,
// '"', '\\' or non-ASCII (the "has a zero byte" bit trick of
// graphics.stanford.edu/~seander/bithacks.html, once per condition; as a
// yes/no answer for the word it is exact).
func needsLook(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(x uint64) uint64 { return (x - ones) &^ x } // top bit set at a zero byte
	less := (w - ones*0x20) &^ w                             // top bit set where a byte < 0x20 borrowed
	return (less|zero(w^ones*'"')|zero(w^ones*'\\')|w)&highs != 0
}

// appendEscapedASCII appends the escape encoding/json writes for the ASCII
// byte c, which is '"', '\\' or a control character.
func appendEscapedASCII(dst []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(dst, '\\', c)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// AppendJSONStrings appends ss as a JSON array of strings; nil is null,
// as encoding/json writes it.
func AppendJSONStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, s)
	}
	return append(dst, ']')
}

// AppendJSONInt appends n as encoding/json writes an int.
func AppendJSONInt(dst []byte, n int) []byte { return strconv.AppendInt(dst, int64(n), 10) }
