#!/usr/bin/env sh
# Installs the Debian packages listed in the named lists (files beside this
# script; default debian-packages.txt) that are not installed yet, naming
# each with the reason written beside it in its list. Runs apt-get as
# root, or through sudo when that works without a password; otherwise
# names the missing packages and the command that installs them, and
# fails. `make run` passes debian-packages.txt (what running needs), `make
# deps` adds debian-packages-test.txt, `make proto` debian-packages-proto.txt.
set -eu
dir=$(dirname "$0")
[ $# -eq 0 ] && set -- debian-packages.txt
missing=""
why=""
for list in "$@"; do
	while IFS= read -r line; do
		p=$(printf '%s\n' "$line" | sed 's/#.*//' | tr -d ' \t')
		[ -z "$p" ] && continue
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
		missing="$missing $p"
		reason=$(printf '%s\n' "$line" | sed -n 's/^[^#]*#[[:space:]]*//p')
		why="$why
  $p: ${reason:-listed in scripts/$list}"
	done <"$dir/$list"
done
[ -z "$missing" ] && exit 0
echo "deps: needed and not installed:$why" >&2
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: no apt-get here: install them with your system's package manager" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "deps: installing needs root; install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing them system-wide with apt-get:$missing" >&2
$sudo apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
