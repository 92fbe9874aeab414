package workbook

import (
	"errors"
	"io"
	"sync"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/inflate"
)

// inflaters keeps part decompressors, with their buffers (about 250 KB),
// for the next part opened.
var inflaters = new(sync.Pool)

// resetInflaters empties inflaters (for tests that weigh the heap).
func resetInflaters() { inflaters = new(sync.Pool) }

// inflater is one opened part's decompressor (package inflate, about
// twice compress/flate's speed on sheet XML); Close hands it back once.
type inflater struct{ z *inflate.Reader }

// newInflater is the zip decompressor of deflated parts.
func newInflater(r io.Reader) io.ReadCloser {
	z, _ := inflaters.Get().(*inflate.Reader)
	if z == nil {
		z = inflate.NewReader(r)
	} else {
		z.Reset(r)
	}
	return &inflater{z: z}
}

var errInflaterClosed = errors.New("read of a closed part")

func (i *inflater) Read(p []byte) (int, error) {
	if i.z == nil {
		return 0, errInflaterClosed
	}
	return i.z.Read(p)
}

func (i *inflater) Close() error {
	if i.z != nil {
		inflaters.Put(i.z)
		i.z = nil
	}
	return nil
}
