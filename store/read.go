package store

import (
	"errors"
	"fmt"
	"io/fs"
)

// Get returns the content of id, verified against it. A damaged or missing
// object is put on the store's list of known-damaged objects; when a
// fallback has its content (the file on disk still hashes right), that
// content is returned and the object written again.
func (o *Objects) Get(id ID) ([]byte, error) {
	data, err := o.get(id)
	if err == nil {
		return data, nil
	}
	var de *DamagedError
	if !errors.As(err, &de) {
		return nil, err
	}
	o.mu.Lock()
	fbs := append([]func(ID) ([]byte, bool){}, o.fallbacks...)
	o.mu.Unlock()
	for _, fb := range fbs {
		if data, ok := fb(id); ok && Sum(data) == id {
			if o.heal(id, data) == nil {
				return data, nil
			}
		}
	}
	o.dmg.add(id)
	return nil, err
}

// heal writes a good copy of id and makes it durable soon.
func (o *Objects) heal(id ID, data []byte) error {
	o.dmg.add(id) // so append writes it whatever the old record says
	kind, payload := o.compress(data, false)
	if err := o.append(id, kind, payload); err != nil {
		return err
	}
	o.SyncSoon()
	return nil
}

func (o *Objects) get(id ID) ([]byte, error) {
	var firstErr error
	where := ""
	for attempt := 0; attempt < 2; attempt++ {
		o.mu.Lock()
		var rec []byte
		var wname string
		if o.w != nil {
			rec, wname = o.w.record(id), o.w.path
		}
		o.load()
		if attempt > 0 {
			o.refresh()
		}
		locs := o.locate(id)
		loose := o.loose
		o.mu.Unlock()
		if rec != nil {
			data, err := o.decodeRecord(id, rec)
			if err == nil {
				return data, nil
			}
			firstErr, where = err, wname
		}
		found := rec != nil
		for _, l := range locs {
			rec, err := l.p.read(l.e)
			if errors.Is(err, fs.ErrNotExist) {
				continue // merged away by another process: refresh
			}
			found = true
			if err == nil {
				var data []byte
				if data, err = o.decodeRecord(id, rec); err == nil {
					o.remember(id)
					return data, nil
				}
			}
			if firstErr == nil {
				firstErr, where = err, fmt.Sprintf("%s at offset %d", l.p.path, l.e.off)
			}
		}
		if loose && looseExists(o.dir, id) {
			data, err := o.getLoose(id)
			if err == nil {
				return data, nil
			}
			found = true
			if firstErr == nil {
				firstErr, where = err, loosePath(o.dir, id)
			}
		}
		if found {
			break
		}
	}
	if firstErr == nil {
		return nil, &DamagedError{ID: id, Path: o.dir, Err: errors.New("missing")}
	}
	var de *DamagedError
	if errors.As(firstErr, &de) {
		return nil, firstErr
	}
	return nil, &DamagedError{ID: id, Path: where, Err: firstErr}
}

// decodeRecord checks a whole record and returns its content.
func (o *Objects) decodeRecord(id ID, rec []byte) ([]byte, error) {
	rid, kind, payload, err := parseRecord(rec)
	if err != nil {
		return nil, err
	}
	if rid != id {
		return nil, fmt.Errorf("the record holds %s", rid)
	}
	return o.decode(id, kind, payload)
}

// decode turns a stored payload into content verified against id.
func (o *Objects) decode(id ID, kind byte, payload []byte) ([]byte, error) {
	var data []byte
	var err error
	switch kind {
	case kindRaw:
		data = append([]byte(nil), payload...)
	case kindZstd:
		if data, err = o.dec.DecodeAll(payload, nil); err != nil {
			return nil, fmt.Errorf("cannot decompress: %w", err)
		}
	case kindPackZ, kindPackR:
		if o.opts.Unpack == nil {
			return nil, errors.New("a packed object, and this store reads none")
		}
		packed := payload
		if kind == kindPackZ {
			if packed, err = o.dec.DecodeAll(payload, nil); err != nil {
				return nil, fmt.Errorf("cannot decompress: %w", err)
			}
		}
		if data, err = o.opts.Unpack(packed); err != nil {
			return nil, err
		}
	case kindDelta, kindDeltaR:
		if len(payload) < 33 {
			return nil, errors.New("truncated delta header")
		}
		if o.opts.Delta == nil {
			return nil, errors.New("a delta object, and this store reads none")
		}
		var base ID
		copy(base[:], payload)
		body := payload[33:]
		if kind == kindDelta {
			if body, err = o.dec.DecodeAll(payload[33:], nil); err != nil {
				return nil, fmt.Errorf("cannot decompress: %w", err)
			}
		}
		if data, err = o.opts.Delta(base, body); err != nil {
			return nil, fmt.Errorf("its base %s: %w", base, err)
		}
	default:
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if Sum(data) != id {
		return nil, errors.New("content does not match its id")
	}
	return data, nil
}

// DeltaBase returns the base of a delta object and the length of its
// chain (a zero ID and 0 for a whole object or one not stored).
func (o *Objects) DeltaBase(id ID) (ID, int, error) {
	var base ID
	o.mu.Lock()
	var rec []byte
	if o.w != nil {
		rec = o.w.record(id)
	}
	o.load()
	locs := o.locate(id)
	loose := o.loose
	o.mu.Unlock()
	var head []byte
	if rec != nil {
		head = rec
	} else if len(locs) > 0 {
		l := locs[0]
		n := int64(recHeader + 33)
		if int64(l.e.n) < n {
			n = int64(l.e.n)
		}
		head = make([]byte, n)
		if err := l.p.readAt(head, l.e.off); err != nil {
			return base, 0, err
		}
	} else if loose {
		return looseDeltaBase(o.dir, id)
	}
	if len(head) < recHeader+33 || (head[32] != kindDelta && head[32] != kindDeltaR) {
		return base, 0, nil
	}
	copy(base[:], head[recHeader:])
	return base, int(head[recHeader+32]), nil
}
