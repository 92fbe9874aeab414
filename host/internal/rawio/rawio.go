// Package rawio reads and writes the host's non-blocking descriptors (the
// stdio pipes of the protocol and the sockets to plugins) without the Go
// runtime's system-call bookkeeping.
//
// Every read or write through package os or net enters the runtime's
// syscall state. When every P of the process was idle, the runtime's
// monitor thread (sysmon) has parked, and that entry wakes it; it then
// polls every 20 µs until it finds the process idle again and parks. The
// host is idle and busy thousands of times a second when calls are in
// flight (waiting for a plugin, then answering), so it paid the monitor's
// wake-up on nearly every burst: a fifth of its CPU with 8 calls in
// flight. A read or write of a non-blocking descriptor returns at once
// (EAGAIN when it would block), so it needs none of that bookkeeping: the
// wrappers here make it as a raw system call and, when it would block,
// park the goroutine in the network poller exactly as package os and net
// do, with their deadlines and Close.
//
// Where that is not possible (another platform, a descriptor that is not
// pollable) the value is returned unwrapped.
package rawio
