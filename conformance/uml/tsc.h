/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Force-included (KCPPFLAGS=-include) into every kernel object of the
 * ours-uml-tsc build of User-Mode Linux, and into no other build.  It is
 * a model, not the series: it gives UML the get_cycles() that x86-64's
 * <asm/tsc.h> has, the CPU's time stamp counter read by rdtsc, so that
 * random_get_entropy() (<linux/timex.h>) reads the counter x86-64 reads
 * instead of UML's clocksource (os_nsecs() / 256).  <asm-generic/timex.h>
 * defines its get_cycles() returning 0 only when no macro of that name
 * exists, so this one takes its place everywhere.
 */
#ifndef LITERATE_DRBG_UML_TSC_H
#define LITERATE_DRBG_UML_TSC_H
#ifndef __ASSEMBLY__

static inline unsigned long literate_drbg_uml_rdtsc(void)
{
	unsigned int lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return ((unsigned long)hi << 32) | lo;
}

#define get_cycles() literate_drbg_uml_rdtsc()

#endif /* __ASSEMBLY__ */
#endif /* LITERATE_DRBG_UML_TSC_H */
