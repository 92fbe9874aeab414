package supervisor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// reaperNeeded: Windows needs no reaper; each plugin runs in a job object
// with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, held only by the host, so the
// kernel kills the plugin and everything it started when the host's handle
// closes — when the plugin stops, and when the host exits however it exits.
const reaperNeeded = false

// limitsEnforced: the job object enforces a manifest's memory (the job's
// committed memory, all its processes together) and cpu_time (user-mode
// CPU time of each process).
const limitsEnforced = true

// systemPath is the PATH a plugin runs with unless its manifest names
// folders (exec_path) or asks for the host's (env: [PATH]): Windows' own
// folders under SystemRoot (taken from the host's environment).
func systemPath(environ []string) string {
	root := `C:\Windows`
	for _, kv := range environ {
		if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, "SystemRoot") && v != "" {
			root = v
		}
	}
	return root + `\System32;` + root + `;` + root + `\System32\Wbem`
}

// osProc is the plugin's job object and a handle to wait on its process.
type osProc struct {
	job     windows.Handle
	process windows.Handle
}

// ReaperExe is empty: Windows runs plugins without a reaper.
func ReaperExe() string { return "" }

// procAttr starts the plugin in a process group of its own, so a console
// Ctrl-C meant for the host does not reach it.
func procAttr(bool) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// afterStart puts the plugin in a new job object that kills its processes
// when the job's last handle closes, with the manifest's ceilings. Processes
// the plugin starts from then on join the job.
func (r *procRunner) afterStart() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if r.limits.memory > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_JOB_MEMORY
		info.JobMemoryLimit = uintptr(r.limits.memory)
	}
	if r.limits.cpuTime > 0 {
		info.BasicLimitInformation.LimitFlags |= windows.JOB_OBJECT_LIMIT_PROCESS_TIME
		info.BasicLimitInformation.PerProcessUserTimeLimit = r.limits.cpuTime / 100 // 100 ns units
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("set job object limits: %w", err)
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.SYNCHRONIZE, false, uint32(r.pid))
	if err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("open plugin process: %w", err)
	}
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(h)
		windows.CloseHandle(job)
		return fmt.Errorf("assign plugin to its job object: %w", err)
	}
	r.os = osProc{job: job, process: h}
	return nil
}

// waitExited waits until the plugin process has exited.
func (r *procRunner) waitExited() {
	if r.os.process != 0 {
		_, _ = windows.WaitForSingleObject(r.os.process, windows.INFINITE)
	}
}

// killTree ends every process of the plugin's job. A job is named by its
// handle, never by a pid, so this is safe after the plugin is reaped.
func (r *procRunner) killTree() {
	if r.os.job != 0 {
		_ = windows.TerminateJobObject(r.os.job, 1)
	}
}

// release closes the job (killing what is left in it) and process handles.
func (r *procRunner) release() {
	if r.os.job != 0 {
		windows.CloseHandle(r.os.job)
		windows.CloseHandle(r.os.process)
		r.os = osProc{}
	}
}

// killPlugin does nothing on Windows: the watchdog, its only caller outside
// the runner, measures nothing there (the job object enforces the ceilings).
func killPlugin(int, bool) {}

// Reap only runs the plugin on Windows, which needs no reaper (see
// reaperNeeded); args are the arguments after ReaperArg.
func Reap(args []string) int {
	if len(args) < 1 {
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); cmd.ProcessState == nil {
		os.Stderr.WriteString("toolhost reaper: start " + args[0] + ": " + err.Error() + "\n")
		return 1
	}
	return cmd.ProcessState.ExitCode()
}

// GroupMembers returns nothing on Windows, which has no process groups to
// list: a plugin's processes are its job's.
func GroupMembers(int) []int { return nil }
