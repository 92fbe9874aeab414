package npmserver

import (
	"path/filepath"
	"strings"
)

// FromCommand reads a client's stdio server command. For `npx [-y]
// PACKAGE[@VERSION] ARGS...` (also behind `cmd /c` on Windows) it returns
// the package spec and the server's args; for anything else, why it cannot
// become a --from-npm plugin, in a sentence that says what to do instead.
func FromCommand(command string, args []string) (spec string, serverArgs []string, why string) {
	prog := strings.ToLower(strings.TrimSuffix(filepath.Base(filepath.ToSlash(command)), ".cmd"))
	prog = strings.TrimSuffix(prog, ".exe")
	if prog == "cmd" && len(args) >= 2 && strings.EqualFold(args[0], "/c") {
		return FromCommand(args[1], args[2:])
	}
	switch prog {
	case "npx":
	case "":
		return "", nil, "it names no command"
	case "uvx", "uv", "pipx", "python", "python3", "pip":
		return "", nil, "a Python server (" + prog + "): --from-npm installs npm servers only; install it into a plugin folder (a virtual environment there) and write its tool.yaml by hand"
	case "docker", "podman":
		return "", nil, "it runs in a container (" + prog + "), which the host does not supervise as a plugin process; keep it in the client's config"
	case "bunx", "pnpm", "pnpx", "yarn", "deno":
		return "", nil, "it fetches its code at launch with " + prog + ": install the same package with `host new-plugin --from-npm PACKAGE@VERSION` and take the entry out by hand"
	case "node":
		return "", nil, "a script on this machine run by node, not a published package: copy its folder into a plugin folder and write its tool.yaml by hand"
	default:
		return "", nil, "a program on this machine (" + command + "), not an npm package: copy it into a plugin folder and write its tool.yaml by hand"
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet" || a == "--no-install" || a == "--":
			continue
		case a == "-p" || a == "--package" || strings.HasPrefix(a, "--package=") || a == "-c" || a == "--call":
			return "", nil, "npx " + a + " runs a command other than the package's own: write its tool.yaml by hand"
		case strings.HasPrefix(a, "-"):
			return "", nil, "npx option " + a + " is not one the import knows: write its tool.yaml by hand"
		}
		for _, r := range args[i+1:] {
			if strings.Contains(r, "${") {
				return "", nil, "its args use ${...}, which only the client expands: write its tool.yaml by hand"
			}
		}
		return a, append([]string{}, args[i+1:]...), ""
	}
	return "", nil, "npx names no package"
}
