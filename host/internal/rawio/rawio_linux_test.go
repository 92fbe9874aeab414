//go:build linux

package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestRawIOLeavesTheMonitorThreadAsleep is why the package exists: a
// process that waits on a peer between each write and read (as the host
// waits on a plugin) wakes the Go runtime's monitor thread on every
// read or write through package os, and not at all through rawio. The
// peer is cat; the monitor thread is the first thread the runtime makes
// after the main one, and its voluntary context switches are counted
// from /proc over 4,000 round trips on one P (through package os
// 100–290 per 2,000 here, through rawio 1–4).
func TestRawIOLeavesTheMonitorThreadAsleep(t *testing.T) {
	const trips, attempts = 4000, 5
	for attempt := 1; ; attempt++ {
		viaOS := monitorWakes(t, trips, false)
		viaRaw := monitorWakes(t, trips, true)
		t.Logf("monitor thread's context switches over %d round trips: %d through package os, %d through rawio", trips, viaOS, viaRaw)
		// Now and then the monitor thread does not park at all during a
		// run (it wakes 9 times through package os instead of hundreds):
		// then the run says nothing either way, and is made again.
		if viaOS < trips/40 {
			if attempt == attempts {
				t.Fatalf("in %d runs through package os the monitor thread never switched more than %d times: the measurement no longer sees it", attempts, trips/40)
			}
			continue
		}
		if viaRaw > trips/40 || viaOS < 4*viaRaw {
			t.Errorf("through rawio the monitor thread switched %d times in %d round trips (through package os %d); want at most %d and a quarter of package os's: reads and writes are entering the runtime's syscall state", viaRaw, trips, viaOS, trips/40)
		}
		return
	}
}

// monitorWakes runs trips round trips through cat, through rawio when
// raw is set, and returns the monitor thread's voluntary context switches.
func monitorWakes(t *testing.T, trips int, raw bool) int {
	t.Helper()
	cmd := exec.Command("cat")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start cat: %v", err)
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	var r io.Reader = out.(*os.File)
	var w io.Writer = in.(*os.File)
	if raw {
		r, w = Reader(out.(*os.File)), Writer(in.(*os.File))
		if _, ok := r.(*file); !ok {
			t.Fatalf("Reader on a pipe from os.Pipe returned %T; want the raw reader", r)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pid := os.Getpid()
	tid, err := testplugin.MonitorThread(pid)
	if err != nil {
		t.Fatal(err)
	}
	before, err := testplugin.VoluntarySwitches(pid, tid)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	for range trips {
		if _, err := w.Write(buf); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
	}
	after, err := testplugin.VoluntarySwitches(pid, tid)
	if err != nil {
		t.Fatal(err)
	}
	return after - before
}

// TestPipeCarriesEveryByteAndItsEnd writes 4 MiB, far more than a pipe
// holds, through Writer while Reader reads in small pieces: the writer
// waits whenever the pipe is full, every byte arrives in order, and the
// reader sees io.EOF when the writer closes.
func TestPipeCarriesEveryByteAndItsEnd(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	want := make([]byte, 4<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	go func() {
		w := Writer(pw)
		n, err := w.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		pw.Close()
		done <- err
	}()
	var got bytes.Buffer
	r := Reader(pr)
	buf := make([]byte, 1000)
	for {
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("read after %d bytes: %v", got.Len(), err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("write: %v", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("read %d bytes that differ from the %d written", got.Len(), len(want))
	}
	if n, err := r.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
}

// TestWriteToAClosedPipeFails: the reader gone, a write returns EPIPE
// (and the process lives on).
func TestWriteToAClosedPipeFails(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Close()
	pr.Close()
	if _, err := Writer(pw).Write([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe with no reader: %v; want EPIPE", err)
	}
}

// TestConnKeepsDeadlinesAndClose: a socket read through Conn answers,
// times out at its deadline, and ends when the socket is closed under it.
func TestConnKeepsDeadlinesAndClose(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = io.Copy(c, c)
	}()
	raw, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := Conn(raw)
	if _, ok := c.(*conn); !ok {
		t.Fatalf("Conn on a unix socket returned %T; want the raw conn", c)
	}
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "ping" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	if err := c.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(got); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v; want os.ErrDeadlineExceeded", err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := c.Read(got)
		ended <- err
	}()
	time.Sleep(10 * time.Millisecond) // let the read wait in the poller
	c.Close()
	if err := <-ended; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read when the conn is closed under it: %v; want net.ErrClosed", err)
	}
}

// TestWhatCannotBePolledIsLeftAlone: a regular file (never in the poller)
// and a conn that is no socket come back as they were.
func TestWhatCannotBePolledIsLeftAlone(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r := Reader(f); r != io.Reader(f) {
		t.Errorf("Reader on a regular file returned %T; want the file itself", r)
	}
	if w := Writer(f); w != io.Writer(f) {
		t.Errorf("Writer on a regular file returned %T; want the file itself", w)
	}
	if Reader(nil) != io.Reader((*os.File)(nil)) {
		t.Error("Reader(nil) wrapped nothing")
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if c := Conn(a); c != a {
		t.Errorf("Conn on net.Pipe returned %T; want it as it was", c)
	}
}
