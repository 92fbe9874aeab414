#!/usr/bin/env sh
# Installs the Debian packages listed in scripts/debian-packages.txt that
# are not installed yet. Runs apt-get as root, or through sudo when that
# works without a password; otherwise names the missing packages and the
# command that installs them, and fails. An argument names another list
# (`make proto` passes debian-packages-proto.txt).
set -eu
list="$(dirname "$0")/${1:-debian-packages.txt}"
missing=""
for p in $(sed 's/#.*//' "$list"); do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing (no apt-get here: install them with your system's package manager)" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo="sudo -n"
else
	echo "deps: missing packages:$missing; install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
$sudo apt-get update -qq >&2 || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
