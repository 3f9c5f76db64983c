#!/bin/sh
# Runs before the package's files are removed (deb prerm, rpm %preun). On removal it stops and
# disables the service; on an upgrade it does nothing (the new package's postinstall restarts it).
# The data in /var/lib/morningdeck, the config and the morningdeck user are kept.
set -e

# deb: $1 is "remove" (or "upgrade", "deconfigure", "failed-upgrade").
# rpm: $1 is 0 on removal, 1 or more on an upgrade.
case "$1" in
	remove | 0) ;;
	*) exit 0 ;;
esac

if command -v systemctl >/dev/null 2>&1; then
	if [ -d /run/systemd/system ]; then
		systemctl stop morningdeck.service || true
	fi
	systemctl disable morningdeck.service >/dev/null 2>&1 || true
fi

exit 0
