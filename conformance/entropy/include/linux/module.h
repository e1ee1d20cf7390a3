/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/module.h> for 6.1's crypto/sha3_generic.c in user space: the
 * program is linked whole, so module metadata, exports and the module
 * pointer say nothing.
 */
#ifndef ENTROPY_LINUX_MODULE_H
#define ENTROPY_LINUX_MODULE_H

#include <linux/init.h>

struct module;

#define THIS_MODULE ((struct module *)0)
#define module_exit(fn)
#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_ALIAS_CRYPTO(s)
#define EXPORT_SYMBOL(sym)

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif
