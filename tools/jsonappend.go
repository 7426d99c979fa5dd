package tools

import (
	"encoding/binary"
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
// Valid UTF-8 (every answer: note text the vault parser checked, or JSON
// encoding/json wrote) is scanned eight bytes at a time for the four bytes
// that need attention; encoding/json decodes every multi-byte character,
// which made escaping a note in another script a third of a call.
func AppendJSONString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		return appendInvalidJSONString(dst, s)
	}
	dst = append(dst, '"')
	start, i := 0, 0
	for i < len(s) {
		// Skip whole words holding none of: a byte < 0x20, '"', '\\', 0xE2
		// (the lead byte of U+2028 and U+2029).
		for i+8 <= len(s) && !needsAttention(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c != 0xE2:
			i++
			continue
		case c == 0xE2:
			if i+2 >= len(s) || s[i+1] != 0x80 || s[i+2]&^1 != 0xA8 {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
			i += 3
			start = i
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = appendEscapedASCII(dst, c)
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// needsAttention reports whether any byte of w is < 0x20, '"', '\\' or
// 0xE2 (the classic "has zero byte" bit trick, applied per condition).
func needsAttention(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	hasZero := func(x uint64) uint64 { return (x - ones) &^ x & highs }
	// A byte < 0x20 is one whose value minus 0x20 borrows from its top bit
	// while its own top bit was clear.
	less := (w - ones*0x20) &^ w & highs
	return less|hasZero(w^(ones*'"'))|hasZero(w^(ones*'\\'))|hasZero(w^(ones*0xE2)) != 0
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

// appendInvalidJSONString is AppendJSONString for text holding invalid
// UTF-8, rune by rune as encoding/json does it.
func appendInvalidJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
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
