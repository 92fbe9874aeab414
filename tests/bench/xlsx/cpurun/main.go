// Command cpurun measures a command the way tests/bench/xlsx/bench.sh
// compares readers: it runs the command N times, one after another, and
// prints the CPU seconds (user + system) per run — the total of all runs
// from the operating system's account of each finished child, divided by
// N — the wall seconds per run likewise, and the peak resident set size,
// the largest of the runs. /usr/bin/time prints CPU in steps of 10 ms,
// which is 10–15% of a 0.1 s run; the child's own account is kept to the
// microsecond, and N runs divide what noise remains.
//
//	cpurun -n 20 -stdout out.txt -rm dump.txt -- CMD ARG…
//
// prints one line: "CPU_S WALL_S RSS_KB" (CPU and wall to the microsecond).
// A run that fails stops the measurement: its stderr is printed and cpurun
// exits 1.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"
)

func main() {
	n := flag.Int("n", 1, "runs of the command")
	stdout := flag.String("stdout", os.DevNull, "file that receives each run's standard output")
	rm := flag.String("rm", "", "file removed before each run (a saved output the command refuses to overwrite)")
	flag.Parse()
	if *n < 1 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: cpurun [-n RUNS] [-stdout FILE] [-rm FILE] -- CMD [ARG…]")
		os.Exit(2)
	}
	m, err := measure(*n, *stdout, *rm, flag.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "cpurun: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%.6f %.6f %d\n", m.cpu.Seconds(), m.wall.Seconds(), m.rssKB)
}

// result is what measure reports: CPU and wall per run, and the peak RSS.
type result struct {
	cpu, wall time.Duration
	rssKB     int64
}

// measure runs argv n times and returns the mean CPU and wall time per run
// and the largest peak RSS.
func measure(n int, stdout, rm string, argv []string) (result, error) {
	var total result
	for i := range n {
		if rm != "" {
			if err := os.Remove(rm); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return result{}, fmt.Errorf("measure: remove %s: %w", rm, err)
			}
		}
		out, err := os.Create(stdout)
		if err != nil {
			return result{}, fmt.Errorf("measure: %w", err)
		}
		var stderr bytes.Buffer
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = out, &stderr
		start := time.Now()
		err = cmd.Run()
		wall := time.Since(start)
		out.Close()
		if err != nil {
			return result{}, fmt.Errorf("measure: run %d of %q: %w\n%s", i+1, argv, err, stderr.Bytes())
		}
		ps := cmd.ProcessState
		total.cpu += ps.UserTime() + ps.SystemTime()
		total.wall += wall
		total.rssKB = max(total.rssKB, maxRSSKB(ps))
	}
	total.cpu /= time.Duration(n)
	total.wall /= time.Duration(n)
	return total, nil
}
