package conv

import (
	"bytes"
	"errors"
	"io"
)

// EachLineBack calls fn with each complete line of f before offset end
// (without its newline) and the offset where it starts, last line first,
// until fn returns false.
func EachLineBack(f io.ReaderAt, end int64, fn func(line []byte, start int64) bool) error {
	for end > 0 {
		line, start, err := lineBefore(f, end)
		if err != nil {
			return err
		}
		if !fn(line, start) {
			return nil
		}
		end = start
	}
	return nil
}

// EachLine calls fn with each complete line of f from offset start up to
// offset end (without its newline) and the offset where it starts, until
// fn returns false.
func EachLine(f io.ReaderAt, start, end int64, fn func(line []byte, start int64) bool) error {
	buf := make([]byte, 0, backChunk)
	chunk := make([]byte, backChunk)
	lineStart := start
	for off := start; off < end; {
		n := int64(len(chunk))
		if end-off < n {
			n = end - off
		}
		if _, err := f.ReadAt(chunk[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		for i := int64(0); i < n; i++ {
			if chunk[i] != '\n' {
				buf = append(buf, chunk[i])
				continue
			}
			if !fn(buf, lineStart) {
				return nil
			}
			buf = buf[:0]
			lineStart = off + i + 1
		}
		off += n
	}
	return nil
}

const backChunk = 64 << 10

// LastNewline is the offset just after the last '\n' in the first size
// bytes of f (0 when there is none).
func LastNewline(f io.ReaderAt, size int64) (int64, error) {
	buf := make([]byte, backChunk)
	for off := size; off > 0; {
		n := int64(backChunk)
		if off < n {
			n = off
		}
		off -= n
		if _, err := f.ReadAt(buf[:n], off); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return off + int64(i) + 1, nil
		}
	}
	return 0, nil
}

// lineBefore returns the line whose '\n' is the byte before end, without
// it, and the offset where the line starts.
func lineBefore(f io.ReaderAt, end int64) ([]byte, int64, error) {
	start, err := LastNewline(f, end-1)
	if err != nil {
		return nil, 0, err
	}
	line := make([]byte, end-1-start)
	if _, err := f.ReadAt(line, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, 0, err
	}
	return line, start, nil
}
