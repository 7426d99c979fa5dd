package main

import "testing"

// answerID finds the id of answers in serve's layout and in any other,
// and none in notifications.
func TestAnswerID(t *testing.T) {
	for _, tc := range []struct {
		line string
		id   int64
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{"content":[]}}` + "\n", 42, true},
		{`{"id":7,"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}}`, 7, true},
		{`{"jsonrpc":"2.0","result":{},"id":9}`, 9, true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, 0, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, 0, false},
		{`not json`, 0, false},
	} {
		id, ok := answerID([]byte(tc.line))
		if id != tc.id || ok != tc.ok {
			t.Errorf("answerID(%s) = %d, %v; want %d, %v", tc.line, id, ok, tc.id, tc.ok)
		}
	}
}
