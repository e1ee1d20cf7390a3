/*
 * Non-physical true random number generator based on timing jitter --
 * Linux Kernel Crypto API specific code
 *
 * Copyright Stephan Mueller <smueller@chronox.de>, 2015 - 2023
 * Copyright Seed c100dd53 maintainers
 *	<maintainers@users.noreply.a-seed-c100dd53.example>, 2026
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions
 * are met:
 * 1. Redistributions of source code must retain the above copyright
 *    notice, and the entire permission notice in its entirety,
 *    including the disclaimer of warranties.
 * 2. Redistributions in binary form must reproduce the above copyright
 *    notice, this list of conditions and the following disclaimer in the
 *    documentation and/or other materials provided with the distribution.
 * 3. The name of the author may not be used to endorse or promote
 *    products derived from this software without specific prior
 *    written permission.
 *
 * ALTERNATIVELY, this product may be distributed under the terms of
 * the GNU General Public License, in which case the provisions of the GPL2 are
 * required INSTEAD OF the above restrictions.  (This clause is
 * necessary due to a potential bad interaction between the GPL and
 * the restrictions contained in a BSD-style copyright.)
 *
 * THIS SOFTWARE IS PROVIDED ``AS IS'' AND ANY EXPRESS OR IMPLIED
 * WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES
 * OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE, ALL OF
 * WHICH ARE HEREBY DISCLAIMED.  IN NO EVENT SHALL THE AUTHOR BE
 * LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
 * CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT
 * OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR
 * BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF
 * LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT
 * (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE
 * USE OF THIS SOFTWARE, EVEN IF NOT ADVISED OF THE POSSIBILITY OF SUCH
 * DAMAGE.
 */

/*
 * CPU Jitter RNG: the kernel crypto API glue.
 *
 * The design is Stephan Mueller's CPU Jitter random number generator,
 * version 1.1.0 of 2015, as submitted for Linux in the series "Seeding
 * DRBG with more entropy" (https://www.chronox.de/jent/).
 *
 * Provides the core (jitterentropy.c, built with -O0 and without kernel
 * headers) with time stamps, memory and SHA3-256 (sha3-256-generic, tested
 * against a known answer when the module loads), runs its start-up test,
 * and registers it as the rng "jitterentropy_rng".  Generated from a
 * literate book, where each part of it is argued.  The project's changes
 * are distributed under the licence above, as the file is.
 */

#include <crypto/hash.h>
#include <crypto/internal/rng.h>
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fips.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/timex.h>

#include "jitterentropy.h"

#define JENT_CONDITIONING_HASH	"sha3-256-generic"
#define JENT_STARTUP_TEXT	256	/* the start-up line, see jent_mod_init() */

static int jent_startup_text(char *buf, size_t size, int ret,
			     const struct jent_startup_stats *s)
{
	return scnprintf(buf, size,
			 "start-up test %s (%d): %u samples, delta %llu..%llu, sum |d2| %llu, stuck %u, varied %u, x100 %u, backwards %u, RCT max %u, APT max %u",
			 ret ? "failed" : "passed", ret, s->samples,
			 s->delta_min, s->delta_max, s->delta_sum, s->stuck,
			 s->varied, s->mod100, s->backwards, s->rct_max,
			 s->apt_max);
}

#ifdef CONFIG_CRYPTO_JITTERENTROPY_TESTHOOKS
static bool testhook_startup_fail;
module_param(testhook_startup_fail, bool, 0444);
MODULE_PARM_DESC(testhook_startup_fail,
		 "Test only: stop the clock during the start-up test");

static int testhook_next_read;
module_param(testhook_next_read, int, 0444);
MODULE_PARM_DESC(testhook_next_read,
		 "Test only: the first read fails, 1 intermittently, 2 permanently");

static bool testhook_kat_fail;
module_param(testhook_kat_fail, bool, 0444);
MODULE_PARM_DESC(testhook_kat_fail,
		 "Test only: the hash's known-answer test hashes the wrong message");

#define JENT_TESTHOOK_MAX_READS	64

static atomic_t jent_testhook_armed = ATOMIC_INIT(JENT_TESTHOOK_NONE);
static bool jent_testhook_clock_stopped;
static u64 jent_testhook_frozen;

/**
 * jent_testhook_fail_next_read() - make the next read of the Jitter RNG fail
 * @kind:	JENT_TESTHOOK_INTERMITTENT or JENT_TESTHOOK_PERMANENT
 *
 * Test only.  The next read of any instance runs with a stopped clock,
 * once for an intermittent failure, until the core reports a permanent
 * one for a permanent failure.
 */
void jent_testhook_fail_next_read(int kind)
{
	atomic_set(&jent_testhook_armed, kind);
}
EXPORT_SYMBOL_GPL(jent_testhook_fail_next_read);

static void jent_testhook_stop_clock(bool stop)
{
	if (stop)
		jent_testhook_frozen = random_get_entropy() ?: ktime_get_ns();
	WRITE_ONCE(jent_testhook_clock_stopped, stop);
}

static struct task_struct *jent_testhook_period_task;
static const u64 *jent_testhook_period_deltas;
static unsigned int jent_testhook_period;
static unsigned int jent_testhook_period_reads;
static u64 jent_testhook_period_now;

/**
 * jent_testhook_periodic_clock() - script a periodic timer for this task
 * @deltas:	the deltas of one period, or NULL to give the clock back
 * @period:	how many there are
 *
 * Test only.  From now on measurement i of the core in the calling task,
 * counted from the call, measures the delta @deltas[i % @period]: the
 * clock advances by 1 at the first read of a measurement, by the delta
 * less 1 at the second (the time stamp) and not at the third.  Other
 * tasks read the real clock.
 */
void jent_testhook_periodic_clock(const u64 *deltas, unsigned int period)
{
	jent_testhook_period_deltas = deltas;
	jent_testhook_period = period;
	jent_testhook_period_reads = 0;
	jent_testhook_period_now = random_get_entropy() ?: ktime_get_ns();
	WRITE_ONCE(jent_testhook_period_task, deltas ? current : NULL);
}
EXPORT_SYMBOL_GPL(jent_testhook_periodic_clock);

static bool jent_testhook_periodic_time(u64 *out)
{
	unsigned int r;

	if (READ_ONCE(jent_testhook_period_task) != current)
		return false;
	r = jent_testhook_period_reads++;
	if (r % 3 == 0)
		jent_testhook_period_now += 1;
	else if (r % 3 == 1)
		jent_testhook_period_now +=
			jent_testhook_period_deltas[(r / 3) %
						    jent_testhook_period] - 1;
	*out = jent_testhook_period_now;
	return true;
}

/**
 * jent_testhook_startup_test() - run the start-up test again
 * @stats:	where its figures go
 * @text:	where the line the module would log goes
 * @size:	the size of @text
 *
 * Test only.  Returns its code: 0 when it passes.
 */
int jent_testhook_startup_test(struct jent_startup_stats *stats, char *text,
			       unsigned int size)
{
	int ret = jent_entropy_init(stats);

	jent_startup_text(text, size, ret, stats);
	return ret;
}
EXPORT_SYMBOL_GPL(jent_testhook_startup_test);

/**
 * jent_testhook_clock() - read the clock as the core reads it
 *
 * Test only.  Returns the time stamp jent_get_nstime() gives.
 */
u64 jent_testhook_clock(void)
{
	u64 t;

	jent_get_nstime(&t);
	return t;
}
EXPORT_SYMBOL_GPL(jent_testhook_clock);

static bool jent_testhook_time(u64 *out)
{
	if (jent_testhook_periodic_time(out))
		return true;
	if (!READ_ONCE(jent_testhook_clock_stopped))
		return false;
	*out = jent_testhook_frozen;
	return true;
}

static bool jent_testhook_startup(void)
{
	return testhook_startup_fail;
}

static bool jent_testhook_kat_fail(void)
{
	return testhook_kat_fail;
}

static void jent_testhook_arm_at_load(void)
{
	if (testhook_next_read)
		jent_testhook_fail_next_read(testhook_next_read);
}

static bool jent_testhook_read(struct rand_data *ec, u8 *rdata,
			       unsigned int dlen, int *ret)
{
	int kind = atomic_xchg(&jent_testhook_armed, JENT_TESTHOOK_NONE);
	int i;

	if (kind == JENT_TESTHOOK_NONE)
		return false;
	jent_testhook_stop_clock(true);
	for (i = 0; i < JENT_TESTHOOK_MAX_READS; i++) {
		*ret = jent_read_entropy(ec, rdata, dlen);
		if (kind != JENT_TESTHOOK_PERMANENT ||
		    *ret != JENT_READ_EINTERMITTENT)
			break;
	}
	jent_testhook_stop_clock(false);
	return true;
}

/**
 * jent_testhook_alloc_size() - what the core gets when it asks for memory
 * @len:	the number of bytes asked for
 *
 * Test only.  Returns how many bytes jent_zalloc() gave, 0 for none.
 */
unsigned int jent_testhook_alloc_size(unsigned int len)
{
	void *p = jent_zalloc(len);
	unsigned int n = ksize(p);

	jent_zfree(p);
	return n;
}
EXPORT_SYMBOL_GPL(jent_testhook_alloc_size);

#define JENT_TESTHOOK_RECORD_MAX_BYTES	1024
#define JENT_TESTHOOK_RECORD_MAX_STAMPS	524288	/* 4 MiB of u64 */

static unsigned int testhook_record_stamps = JENT_TESTHOOK_RECORD_MAX_STAMPS;
module_param(testhook_record_stamps, uint, 0644);
MODULE_PARM_DESC(testhook_record_stamps,
		 "Test only: how many time stamps a record keeps, 1 to 524288");

static DEFINE_MUTEX(jent_testhook_record_lock);
static struct task_struct *jent_testhook_recorder;
static u64 *jent_testhook_stamps;
static unsigned int jent_testhook_cap;
static unsigned int jent_testhook_nstamps;
static unsigned int jent_testhook_lost;
static u8 jent_testhook_out[JENT_TESTHOOK_RECORD_MAX_BYTES];
static unsigned int jent_testhook_len;
static int jent_testhook_result;

static void jent_testhook_record(u64 stamp)
{
	if (READ_ONCE(jent_testhook_recorder) != current)
		return;
	if (jent_testhook_nstamps < jent_testhook_cap)
		jent_testhook_stamps[jent_testhook_nstamps++] = stamp;
	else
		jent_testhook_lost++;
}

/* Read len bytes from rng, a new instance, recording cap time stamps. */
static void jent_testhook_record_run(struct crypto_rng *rng, u64 *stamps,
				     unsigned int cap, unsigned int len)
{
	kvfree(jent_testhook_stamps);
	jent_testhook_stamps = stamps;
	jent_testhook_cap = cap;
	jent_testhook_nstamps = 0;
	jent_testhook_lost = 0;
	jent_testhook_len = len;
	WRITE_ONCE(jent_testhook_recorder, current);
	jent_testhook_result = crypto_rng_get_bytes(rng, jent_testhook_out, len);
	WRITE_ONCE(jent_testhook_recorder, NULL);
}

static int jent_testhook_record_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&jent_testhook_record_lock);
	if (jent_testhook_stamps) {
		seq_printf(m, "bytes %u\nresult %d\nstamps %u\nlost %u\noutput ",
			   jent_testhook_len, jent_testhook_result,
			   jent_testhook_nstamps, jent_testhook_lost);
		for (i = 0; i < jent_testhook_len; i++)
			seq_printf(m, "%02x", jent_testhook_out[i]);
		seq_putc(m, '\n');
		for (i = 0; i < jent_testhook_nstamps; i++)
			seq_printf(m, "%llu\n", jent_testhook_stamps[i]);
	}
	mutex_unlock(&jent_testhook_record_lock);
	return 0;
}

static ssize_t jent_testhook_file_write(struct file *file,
					const char __user *ubuf, size_t count,
					loff_t *ppos)
{
	unsigned int len, cap = READ_ONCE(testhook_record_stamps);
	struct crypto_rng *rng;
	u64 *stamps;
	int ret = kstrtouint_from_user(ubuf, count, 10, &len);

	if (ret)
		return ret;
	if (!len || len > JENT_TESTHOOK_RECORD_MAX_BYTES)
		return -EINVAL;
	if (!cap || cap > JENT_TESTHOOK_RECORD_MAX_STAMPS)
		return -EINVAL;
	rng = crypto_alloc_rng("jitterentropy_rng", 0, 0);
	if (IS_ERR(rng))
		return PTR_ERR(rng);
	stamps = kvmalloc_array(cap, sizeof(u64), GFP_KERNEL);
	if (stamps) {
		mutex_lock(&jent_testhook_record_lock);
		jent_testhook_record_run(rng, stamps, cap, len);
		mutex_unlock(&jent_testhook_record_lock);
	}
	crypto_free_rng(rng);
	return stamps ? count : -ENOMEM;
}

static int jent_testhook_record_open(struct inode *inode, struct file *file)
{
	return single_open(file, jent_testhook_record_show, NULL);
}

static const struct file_operations jent_testhook_record_fops = {
	.owner = THIS_MODULE,
	.open = jent_testhook_record_open,
	.read = seq_read,
	.write = jent_testhook_file_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static struct dentry *jent_testhook_dir;

static void jent_testhook_debugfs_init(void)
{
	jent_testhook_dir = debugfs_create_dir("jitterentropy_rng", NULL);
	debugfs_create_file("record", 0600, jent_testhook_dir, NULL,
			    &jent_testhook_record_fops);
}

static void jent_testhook_debugfs_exit(void)
{
	debugfs_remove_recursive(jent_testhook_dir);
	kvfree(jent_testhook_stamps);
}
#else
static inline void jent_testhook_stop_clock(bool stop) { }
static inline bool jent_testhook_time(u64 *out) { return false; }
static inline bool jent_testhook_startup(void) { return false; }
static inline bool jent_testhook_kat_fail(void) { return false; }
static inline void jent_testhook_arm_at_load(void) { }
static inline bool jent_testhook_read(struct rand_data *ec, u8 *rdata,
				      unsigned int dlen, int *ret)
{
	return false;
}

static inline void jent_testhook_record(u64 stamp) { }
static inline void jent_testhook_debugfs_init(void) { }
static inline void jent_testhook_debugfs_exit(void) { }
#endif

void *jent_zalloc(unsigned int len)
{
	return kzalloc(len, GFP_KERNEL);
}

void jent_zfree(void *ptr)
{
	kfree_sensitive(ptr);
}

void jent_get_nstime(u64 *out)
{
	u64 tmp;

	if (!jent_testhook_time(&tmp)) {
		tmp = random_get_entropy();
		if (!tmp)
			tmp = ktime_get_ns();
	}
	jent_testhook_record(tmp);
	*out = tmp;
}

int jent_sha3_256(void *hash, const u8 *in, unsigned int inlen, u8 *out)
{
	return crypto_shash_tfm_digest(hash, in, inlen, out);
}

/* SHA3-256("abc"), FIPS 202 example values. */
static const u8 jent_hash_kat_digest[] = {
	0x3a, 0x98, 0x5d, 0xa7, 0x4f, 0xe2, 0x25, 0xb2,
	0x04, 0x5c, 0x17, 0x2d, 0x6b, 0xd3, 0x90, 0xbd,
	0x85, 0x5f, 0x08, 0x6e, 0x3e, 0x9d, 0x52, 0x5b,
	0x46, 0xbf, 0xe2, 0x45, 0x11, 0x43, 0x15, 0x32,
};

static int jent_hash_kat(void)
{
	struct crypto_shash *hash;
	u8 out[sizeof(jent_hash_kat_digest)];
	int ret;

	hash = crypto_alloc_shash(JENT_CONDITIONING_HASH, 0, 0);
	if (IS_ERR(hash))
		return PTR_ERR(hash);
	ret = jent_sha3_256(hash, (const u8 *)(jent_testhook_kat_fail() ?
						"abd" : "abc"), 3, out);
	if (!ret && memcmp(out, jent_hash_kat_digest, sizeof(out)))
		ret = -EBADMSG;
	pr_info("jitterentropy: SHA3-256 known-answer test %s (%s)\n",
		ret ? "failed" : "passed", crypto_shash_driver_name(hash));
	crypto_free_shash(hash);
	return ret;
}

struct jitterentropy {
	struct mutex jent_lock;
	struct rand_data *entropy_collector;
	struct crypto_shash *tfm;
};

static void jent_kcapi_cleanup(struct crypto_tfm *tfm)
{
	struct jitterentropy *rng = crypto_tfm_ctx(tfm);

	jent_entropy_collector_free(rng->entropy_collector);
	rng->entropy_collector = NULL;
	if (rng->tfm)
		crypto_free_shash(rng->tfm);
	rng->tfm = NULL;
	mutex_destroy(&rng->jent_lock);
}

static int jent_kcapi_init(struct crypto_tfm *tfm)
{
	struct jitterentropy *rng = crypto_tfm_ctx(tfm);
	struct crypto_shash *hash;

	mutex_init(&rng->jent_lock);
	hash = crypto_alloc_shash(JENT_CONDITIONING_HASH, 0, 0);
	if (IS_ERR(hash)) {
		mutex_destroy(&rng->jent_lock);
		return PTR_ERR(hash);
	}
	rng->tfm = hash;
	rng->entropy_collector = jent_entropy_collector_alloc(1, 0, hash);
	if (!rng->entropy_collector) {
		jent_kcapi_cleanup(tfm);
		return -ENOMEM;
	}
	return 0;
}

/**
 * jent_kcapi_read() - read @dlen bytes from the core, a block at a time
 * @ec:		the collector
 * @rdata:	where the bytes go
 * @dlen:	how many
 *
 * The same bytes as one jent_read_entropy() of @dlen bytes, with the CPU
 * given up between two blocks: a block takes hundreds of unoptimised
 * measurements.
 *
 * Context: Process context, with the instance's mutex held; may sleep.
 * Return: 0, or the core's error, with all of @rdata cleared.
 */
static int jent_kcapi_read(struct rand_data *ec, u8 *rdata, unsigned int dlen)
{
	unsigned int done = 0, n;
	int ret;

	do {
		n = min_t(unsigned int, dlen - done, JENT_BLOCK_BYTES);
		ret = jent_read_entropy(ec, rdata + done, n);
		if (ret) {
			memzero_explicit(rdata, done);
			return ret;
		}
		done += n;
		if (done < dlen)
			cond_resched();
	} while (done < dlen);
	return 0;
}

static int jent_kcapi_random(struct crypto_rng *tfm, const u8 *src,
			     unsigned int slen, u8 *rdata, unsigned int dlen)
{
	struct jitterentropy *rng = crypto_rng_ctx(tfm);
	int ret;

	mutex_lock(&rng->jent_lock);
	if (!jent_testhook_read(rng->entropy_collector, rdata, dlen, &ret))
		ret = jent_kcapi_read(rng->entropy_collector, rdata, dlen);
	mutex_unlock(&rng->jent_lock);

	switch (ret) {
	case 0:
		return 0;
	case JENT_READ_EINTERMITTENT:
		pr_warn_ratelimited("jitterentropy: intermittent health test failure, collector reset\n");
		return -EAGAIN;
	case JENT_READ_EPERMANENT:
		if (fips_enabled)
			panic("jitterentropy: permanent health test failure\n");
		pr_err_ratelimited("jitterentropy: permanent health test failure\n");
		return -EFAULT;
	default:
		return -EINVAL;
	}
}

static int jent_kcapi_reset(struct crypto_rng *tfm, const u8 *seed,
			    unsigned int slen)
{
	return 0;
}

static struct rng_alg jent_alg = {
	.generate		= jent_kcapi_random,
	.seed			= jent_kcapi_reset,
	.seedsize		= 0,
	.base			= {
		.cra_name		= "jitterentropy_rng",
		.cra_driver_name	= "jitterentropy_rng",
		.cra_priority		= 100,
		.cra_ctxsize		= sizeof(struct jitterentropy),
		.cra_module		= THIS_MODULE,
		.cra_init		= jent_kcapi_init,
		.cra_exit		= jent_kcapi_cleanup,
	}
};

static int __init jent_mod_init(void)
{
	struct jent_startup_stats s;
	char text[JENT_STARTUP_TEXT];
	int ret;

	ret = jent_hash_kat();
	if (ret == -EBADMSG && fips_enabled)
		panic("jitterentropy: SHA3-256 known-answer test failed\n");
	if (ret)
		return ret;
	jent_testhook_stop_clock(jent_testhook_startup());
	ret = jent_entropy_init(&s);
	jent_testhook_stop_clock(false);
	if (ret == JENT_ENOMEM)
		return -ENOMEM;
	jent_startup_text(text, sizeof(text), ret, &s);
	pr_info("jitterentropy: %s\n", text);
	if (ret) {
		if (fips_enabled)
			panic("jitterentropy: start-up test failed with error %d\n", ret);
		return -EFAULT;
	}
	jent_testhook_arm_at_load();
	ret = crypto_register_rng(&jent_alg);
	if (!ret) {
		jent_testhook_debugfs_init();
		jent_testing_init();
	}
	return ret;
}

static void __exit jent_mod_exit(void)
{
	jent_testing_exit();
	jent_testhook_debugfs_exit();
	crypto_unregister_rng(&jent_alg);
}

module_init(jent_mod_init);
module_exit(jent_mod_exit);

MODULE_LICENSE("Dual BSD/GPL");
MODULE_AUTHOR("Stephan Mueller <smueller@chronox.de>");
MODULE_DESCRIPTION("CPU Jitter RNG, SP 800-90B health-tested, SHA3-256 conditioned");
MODULE_ALIAS_CRYPTO("jitterentropy_rng");
