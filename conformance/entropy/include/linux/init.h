/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/init.h> for 6.1's crypto/sha3_generic.c in user space: there is
 * no boot to run an initcall and nothing to unload, so the section
 * markers say only that the functions may go unused.
 */
#ifndef ENTROPY_LINUX_INIT_H
#define ENTROPY_LINUX_INIT_H

#define __init __attribute__((__unused__))
#define __exit __attribute__((__unused__))
#define subsys_initcall(fn)

#endif
