package runconfig

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"dptext/internal/configfile"
	"dptext/internal/filehash"
)

// maxConfigBytes bounds a config file: the largest shipped config is a few KB, and the TOML
// parser's memory grows with the input far faster than linearly for nested tables.
const maxConfigBytes = 1 << 20

// maxConfigNesting bounds how deeply arrays and inline tables nest in a config (the deepest
// shipped config nests 2); a 40 KB file of 10,000 nested inline tables made the parser take
// 3.7 GB.
const maxConfigNesting = 16

// readConfigFile reads a config of at most maxConfigBytes from a regular file: a device such as
// /dev/zero or a named pipe, whose size cannot be known first, is refused at once, without
// waiting for a pipe's writer (see filehash.OpenRegular).
func readConfigFile(path string) (string, error) {
	f, info, err := filehash.OpenRegular(path)
	var nr *filehash.NotRegularError
	if errors.As(err, &nr) {
		return "", &configfile.Error{File: path, Msg: fmt.Sprintf("not a regular file (%s): want a TOML file", nr.What())}
	}
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	if info.Size() > maxConfigBytes {
		return "", &configfile.Error{File: path, Msg: fmt.Sprintf("%d bytes: a config may have at most %d bytes", info.Size(), maxConfigBytes)}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return "", fmt.Errorf("config: %w", err)
	}
	if len(data) > maxConfigBytes {
		return "", &configfile.Error{File: path, Msg: fmt.Sprintf("grew beyond %d bytes while being read: a config may have at most %d bytes", maxConfigBytes, maxConfigBytes)}
	}
	return string(data), nil
}

// checkConfigShape refuses, before the TOML parser sees it, a config text above
// maxConfigBytes or whose arrays and inline tables nest deeper than maxConfigNesting
// (brackets inside strings and comments do not count).
func checkConfigShape(path, src string) error {
	if len(src) > maxConfigBytes {
		return &configfile.Error{File: path, Msg: fmt.Sprintf("%d bytes: a config may have at most %d bytes", len(src), maxConfigBytes)}
	}
	depth, line := 0, 1
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\n':
			line++
		case c == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			q := string(c)
			if strings.HasPrefix(src[i:], q+q+q) {
				end := strings.Index(src[i+3:], q+q+q)
				if end < 0 {
					return nil // unterminated: the parser reports it
				}
				line += strings.Count(src[i:i+3+end], "\n")
				i += 3 + end + 2
				continue
			}
			for i++; i < len(src) && src[i] != c && src[i] != '\n'; i++ {
				if c == '"' && src[i] == '\\' {
					i++
				}
			}
			if i < len(src) && src[i] == '\n' {
				line++
			}
		case c == '[' || c == '{':
			if depth++; depth > maxConfigNesting {
				return &configfile.Error{File: path, Line: line, Msg: fmt.Sprintf("arrays and inline tables nest deeper than %d levels", maxConfigNesting)}
			}
		case c == ']' || c == '}':
			depth = max(0, depth-1)
		}
	}
	return nil
}
