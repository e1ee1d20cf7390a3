// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guest's isolation check (conformance/guest/blocking.c) built for the
 * host, for test_blocking.py, with the paths of its devices and of the
 * debugfs trigger given by the test (-DRANDOM_DEV=... and the others); its
 * record goes to stdout.
 */
#include "blocking.c"

int main(void)
{
	check_blocking_isolation();
	return 0;
}
