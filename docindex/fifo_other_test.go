//go:build !unix

package docindex

import "errors"

func mkfifo(string) error { return errors.New("unsupported") }
