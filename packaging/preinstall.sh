#!/bin/sh
# Runs before the package's files are unpacked (deb preinst, rpm %pre): creates the system
# user and group the service runs as, with its home (where the data lives) in /var/lib/morningdeck.
set -e

if ! getent group morningdeck >/dev/null 2>&1; then
	if command -v groupadd >/dev/null 2>&1; then
		groupadd --system morningdeck
	else
		addgroup --system morningdeck
	fi
fi

if ! getent passwd morningdeck >/dev/null 2>&1; then
	nologin=$(command -v nologin 2>/dev/null || echo /bin/false)
	if command -v useradd >/dev/null 2>&1; then
		useradd --system --gid morningdeck --home-dir /var/lib/morningdeck --no-create-home \
			--shell "$nologin" --comment "Morning Deck" morningdeck
	else
		adduser --system --ingroup morningdeck --home /var/lib/morningdeck --no-create-home \
			--shell "$nologin" --gecos "Morning Deck" morningdeck
	fi
fi

exit 0
