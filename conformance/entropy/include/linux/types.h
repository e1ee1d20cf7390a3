/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * <linux/types.h> for 6.1's crypto/sha3_generic.c and include/crypto/sha3.h
 * in user space (conformance/entropy/pristine_host.c): the kernel's fixed-
 * width types as x86 defines them (u64 is unsigned long long), the
 * little-endian ones without sparse's annotation, and noinline, which the
 * kernel has from compiler_types.h in every file.
 */
#ifndef ENTROPY_LINUX_TYPES_H
#define ENTROPY_LINUX_TYPES_H

#include <stddef.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef u32 __le32;
typedef u64 __le64;

#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif

#endif
