/* SPDX-License-Identifier: GPL-2.0-only */
/* Excerpts of include/linux/sizes.h. */

#define SZ_1K				0x00000400
#define SZ_4K				0x00001000
#define SZ_64K				0x00010000
#define SZ_256K				0x00040000
#define SZ_1M				0x00100000
