#!/bin/sh
# Runs after the package's files are in place (deb postinst, rpm %post): makes the data
# directory, lets the service read its config, and enables the service. A first install does
# not start it (start it with `systemctl start morningdeck`); an upgrade restarts it when it runs.
set -e

# deb: $1 is "configure" and $2 the version being upgraded from (empty on a first install).
# rpm: $1 is 1 on a first install, 2 or more on an upgrade.
upgrade=no
case "$1" in
	configure) [ -n "$2" ] && upgrade=yes ;;
	abort-*) exit 0 ;;
	[2-9] | [1-9][0-9]*) upgrade=yes ;;
esac

install -d -m 0750 -o morningdeck -g morningdeck /var/lib/morningdeck
if [ -d /etc/morningdeck ]; then
	chown root:morningdeck /etc/morningdeck
	chmod 0750 /etc/morningdeck
fi
if [ -f /etc/morningdeck/morningdeck.conf ]; then
	# It may hold the SMTP password or an LLM API key.
	chown root:morningdeck /etc/morningdeck/morningdeck.conf
	chmod 0640 /etc/morningdeck/morningdeck.conf
fi

if command -v systemctl >/dev/null 2>&1; then
	if [ -d /run/systemd/system ]; then
		systemctl daemon-reload || true
	fi
	systemctl enable morningdeck.service >/dev/null 2>&1 || true
	if [ "$upgrade" = yes ] && [ -d /run/systemd/system ]; then
		systemctl try-restart morningdeck.service || true
	fi
fi

exit 0
