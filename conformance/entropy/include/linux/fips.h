/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/fips.h> for 6.1's crypto/jitterentropy.c in user space
 * (conformance/entropy/pristine_host.c): a kernel booted without fips=1,
 * as Debian's kernels boot by default.
 */
#ifndef ENTROPY_LINUX_FIPS_H
#define ENTROPY_LINUX_FIPS_H

extern int fips_enabled;

#endif
