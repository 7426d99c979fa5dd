package tools

import (
	"encoding/binary"
	"slices"
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
// It copies eight bytes at a time while none of them needs a look (a
// control character, ", \, or any non-ASCII byte), and otherwise goes
// through those eight one by one, checking UTF-8 as it goes. An answer is
// mostly plain text, and the text form of a tool's answer is its JSON
// escaped once more, a quote every few bytes: this is most of what
// encoding an answer costs, so the output is written by index into room
// made in advance rather than appended piece by piece.
func AppendJSONString(dst []byte, s string) []byte {
	n := len(s)
	j := len(dst)
	dst = slices.Grow(dst, n+n/8+wordRoom)
	dst = dst[:cap(dst)]
	dst[j] = '"'
	j++
	for i := 0; i < n; {
		if len(dst)-j < n-i+wordRoom { // room for the rest as it is, a word's escapes and the quote
			dst = slices.Grow(dst[:j], n-i+(n-i)/4+wordRoom)
			dst = dst[:cap(dst)]
		}
		end := n
		if i+8 <= n {
			w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			if !needsLook(w) {
				binary.LittleEndian.PutUint64(dst[j:], w)
				i, j = i+8, j+8
				continue
			}
			if printableASCII(w) {
				// Only '"' and '\\' need escaping here, each by a backslash
				// before it: written without a branch per byte, since in
				// JSON escaped again as text nearly every word has a quote.
				for _, c := range []byte(s[i : i+8]) {
					dst[j] = '\\'
					j += int(backslashed[c])
					dst[j] = c
					j++
				}
				i += 8
				continue
			}
			end = i + 8
		}
		// At most eight bytes (or the tail), each of which may grow by up
		// to five: the room made above suffices.
		for i < end {
			c := s[i]
			if c < utf8.RuneSelf {
				if c >= 0x20 && c != '"' && c != '\\' {
					dst[j] = c
					i, j = i+1, j+1
					continue
				}
				j += putEscapedASCII(dst[j:], c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				j += copy(dst[j:], `\ufffd`)
			case r == '\u2028' || r == '\u2029':
				j += copy(dst[j:], `\u202`)
				dst[j] = hexDigits[r&0xF]
				j++
			default:
				j += copy(dst[j:], s[i:i+size])
			}
			i += size
		}
	}
	dst[j] = '"'
	return dst[:j+1]
}

const hexDigits = "0123456789abcdef"

// wordRoom is the room AppendJSONString keeps beyond the rest of its input:
// eight bytes that each grow by five (a control character becomes
// \u00XX), a rune that starts in the word and ends after it, and the
// closing quote.
const wordRoom = 8*5 + utf8.UTFMax + 1

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

// printableASCII reports whether every byte of w is printable ASCII (0x20
// to 0x7F), which in a JSON string escape only as \" and \\.
func printableASCII(w uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (w - ones*0x20) &^ w // as in needsLook
	return (less|w)&highs == 0
}

// backslashed marks the bytes a JSON string escapes with a backslash before
// them as they are: '"' and '\\'.
var backslashed = [256]uint8{'"': 1, '\\': 1}

// putEscapedASCII writes at the start of dst the escape encoding/json
// writes for the ASCII byte c, which is '"', '\\' or a control character,
// and returns its length.
func putEscapedASCII(dst []byte, c byte) int {
	dst[0] = '\\'
	switch c {
	case '"', '\\':
		dst[1] = c
	case '\b':
		dst[1] = 'b'
	case '\f':
		dst[1] = 'f'
	case '\n':
		dst[1] = 'n'
	case '\r':
		dst[1] = 'r'
	case '\t':
		dst[1] = 't'
	default:
		dst[1], dst[2], dst[3], dst[4], dst[5] = 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF]
		return 6
	}
	return 2
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
