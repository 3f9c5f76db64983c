#!/bin/sh
# Runs after the package's files are removed (deb postrm, rpm %postun): tells systemd the unit
# is gone. The data in /var/lib/morningdeck and the morningdeck user are kept, even on purge:
# remove them yourself (`rm -r /var/lib/morningdeck; userdel morningdeck`) when you are sure.
set -e

if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi

exit 0
