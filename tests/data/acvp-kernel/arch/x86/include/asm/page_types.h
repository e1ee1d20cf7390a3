/* SPDX-License-Identifier: GPL-2.0 */
/* Excerpts of arch/x86/include/asm/page_types.h. */

#define PAGE_SHIFT		12
#define PAGE_SIZE		(_AC(1,UL) << PAGE_SHIFT)
