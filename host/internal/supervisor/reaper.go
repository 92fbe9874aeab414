package supervisor

// ReaperArg is the first argument that runs a host executable as a plugin's
// reaper: `EXE ReaperArg PLUGIN [ARG…]`. The host's main calls Reap for it before
// anything else, and sets Options.Reaper to its own executable (ReaperExe).
//
// Reap is the reaper: a small process that leads the plugin's process group,
// runs the plugin in it, and kills the whole group when the plugin exits or
// when the reaper is told to stop — by the host, or when the host dies
// (Linux: the reaper's parent-death signal; macOS: a kqueue watch of the
// host's exit). Processes the plugin spawns stay in its group, so none of
// them outlives the host, however the host exits. Windows needs no reaper:
// each plugin runs in a job object that the kernel kills when the host's
// handle to it closes, so there Reap only runs the plugin.
const ReaperArg = "--toolhost-plugin-reaper"
