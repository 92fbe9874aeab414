package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/sdk"
)

// Memory: each call may hold at most XLSX_MAX_MEMORY bytes of workbook data
// (default 256 MiB), and at most XLSX_MAX_CONCURRENCY calls (default 2) read
// at once, later ones waiting their turn, so the plugin's memory stays
// within budget × concurrency plus the runtime's own.
const (
	maxMemoryEnv      = "XLSX_MAX_MEMORY"
	maxConcurrencyEnv = "XLSX_MAX_CONCURRENCY"
	defaultConcurrent = 2
)

// memoryConfig is the budget and concurrency read from the environment.
type memoryConfig struct {
	budget     int64
	concurrent int
	err        error // a malformed variable, reported by every call
}

// loadMemoryConfig reads XLSX_MAX_MEMORY and XLSX_MAX_CONCURRENCY.
func loadMemoryConfig() memoryConfig {
	c := memoryConfig{budget: workbook.DefaultMaxMemory, concurrent: defaultConcurrent}
	if v := strings.TrimSpace(os.Getenv(maxMemoryEnv)); v != "" {
		n, err := parseBytes(v)
		if err != nil {
			c.err = fmt.Errorf("%s=%q: %w; give bytes, optionally with KB, MB, GB, KiB, MiB or GiB (e.g. 512MiB)", maxMemoryEnv, v, err)
			return c
		}
		c.budget = n
	}
	if v := strings.TrimSpace(os.Getenv(maxConcurrencyEnv)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			c.err = fmt.Errorf("%s=%q: not a whole number of calls of 1 or more (e.g. 2)", maxConcurrencyEnv, v)
			return c
		}
		c.concurrent = n
	}
	return c
}

// parseBytes reads "268435456", "256MB", "256 MiB", "1GiB".
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mul    int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}}
	ls := strings.ToLower(s)
	mul := int64(1)
	for _, u := range units {
		if strings.HasSuffix(ls, u.suffix) {
			ls, mul = strings.TrimSpace(strings.TrimSuffix(ls, u.suffix)), u.mul
			break
		}
	}
	n, err := strconv.ParseInt(ls, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("not a size of 1 byte or more")
	}
	if n > (1<<62)/mul {
		return 0, fmt.Errorf("too large")
	}
	return n * mul, nil
}

var (
	memOnce sync.Once
	memCfg  memoryConfig
	slots   chan struct{}
)

// memory returns the configuration, read once; the first read also sets
// the runtime's soft memory limit to budget × concurrency plus headroom, so
// the collector works harder before the process outgrows it.
func memory() memoryConfig {
	memOnce.Do(func() {
		memCfg = loadMemoryConfig()
		slots = make(chan struct{}, memCfg.concurrent)
		if memCfg.err == nil {
			debug.SetMemoryLimit(memCfg.budget*int64(memCfg.concurrent) + 64<<20)
		}
	})
	return memCfg
}

// limited wraps a handler so it runs only while one of the concurrency
// slots is free (waiting for one until ctx ends) and refuses to run on a
// malformed memory configuration. A streamed result keeps the slot until
// it is written.
func limited(h sdk.Handler) sdk.Handler {
	return func(ctx context.Context, req *sdk.Request) (*sdk.Result, error) {
		c := memory()
		if c.err != nil {
			return nil, &sdk.Error{Code: codeInvalidConfig, Message: c.err.Error(),
				NextStep: "fix the variable in the host's environment, or unset it for the default"}
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return nil, sdk.Errorf(sdk.CodeCancelled, "waiting for a free reader (%d run at once, %s): %v", c.concurrent, maxConcurrencyEnv, ctx.Err())
		}
		handed := false
		defer func() {
			if !handed {
				<-slots
			}
		}()
		res, err := h(ctx, req)
		if s, ok := resultStream(res, err); ok {
			// The sheet is read while the result is written: the slot
			// goes with it.
			handed = true
			s.onDone(func() { <-slots })
		}
		return res, err
	}
}

// resultStream returns a successful result's streamed data.
func resultStream(res *sdk.Result, err error) (*streamed, bool) {
	if err != nil || res == nil {
		return nil, false
	}
	s, ok := res.Data.(*streamed)
	return s, ok
}

// limits are the workbook limits of one call.
func limits() *workbook.Limits {
	return &workbook.Limits{MaxMemory: memory().budget}
}
