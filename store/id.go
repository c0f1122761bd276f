package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// ID names stored content: the SHA-256 of its uncompressed bytes.
type ID [32]byte

// String is the 64-digit lowercase hex form of id.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero ID (no content).
func (id ID) IsZero() bool { return id == ID{} }

// MarshalText is the 64-digit hex form of id, so that ids in JSON read
// as text. The zero ID has its form too (snapshot uses it for the empty
// tree).
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses the 64-digit hex form of an ID.
func (id *ID) UnmarshalText(text []byte) error {
	v, err := ParseID(string(text))
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseID parses the 64-digit hex form of an ID.
func ParseID(s string) (ID, error) {
	var id ID
	if len(s) != 64 {
		return id, fmt.Errorf("snapshot id %q: want 64 hex digits", s)
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, fmt.Errorf("snapshot id %q: %w", s, err)
	}
	return id, nil
}

// Sum returns the ID of data.
func Sum(data []byte) ID { return sha256.Sum256(data) }

// DamagedError reports stored content that is missing, unreadable or does
// not match its ID. Path says where it was looked for (a loose object's
// file, or a pack and the record's offset).
type DamagedError struct {
	ID   ID
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("object %s (%s) is damaged: %v", e.ID, e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }
