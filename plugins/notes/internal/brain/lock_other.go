//go:build !unix

package brain

import (
	"errors"
	"io/fs"
	"os"
)

// tryLock creates path exclusively without waiting: unlock is nil when
// another writer holds it.
func tryLock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+".held", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	return func() { _ = os.Remove(path + ".held") }, nil
}
