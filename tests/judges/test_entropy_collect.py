# SPDX-License-Identifier: GPL-2.0-only
"""The user-space entropy collectors of make entropy (conformance/entropy/,
harness/judges/entropy_collect.py): they build from the tangled core and
from 6.1's unmodified files (its core and its SHA-3), 6.1's glue feeds
its hash as 6.1's does and refuses a hash that is not FIPS 202's, and a short run
records raw samples where the chapter says: every delta the health tests
see, consecutively, so that our core's counted samples (not stuck, after
the priming samples) come out 320 per block.
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from harness.base import config, kcache
from harness.judges import entropy_collect as ec
from harness.judges import entropy_data as ed
from harness.judges import jitter_model as model

HERE = os.path.dirname(os.path.abspath(__file__))

# kbuild's record of the test kernel's crypto/jitterentropy.o (its source
# tree's path replaced by SRC), as make kernel leaves it.
CMD = os.path.join(config.TOP, "tests/data/jitterentropy.o.cmd")
# The same for crypto/sha3_generic.o, 6.1's SHA-3, which pristine-user
# hashes with.
SHA3_CMD = os.path.join(config.TOP, "tests/data/sha3_generic.o.cmd")


def keccak_round(obj):
    """The instructions of sha3_generic.c's keccakf_round() in obj, without
    their addresses."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True,
                         text=True, check=True).stdout
    body = dis.split("<keccakf_round>:\n", 1)[1].split("\n\n", 1)[0]
    return [ln.split(":", 1)[1].strip() for ln in body.splitlines() if ":" in ln]


class KernelFlagsTest(unittest.TestCase):
    """The user-space cores get the kernel object's code options."""

    def test_code_options_of_the_kernel_object(self):
        flags, differs = ec.kernel_object_flags(CMD)
        for f in ("-mno-red-zone", "-fno-strict-aliasing", "-mno-sse",
                  "-ftrivial-auto-var-init=zero", "-mfunction-return=thunk-extern",
                  "-fstack-protector-strong", "-std=gnu11"):
            self.assertIn(f, flags)
        self.assertEqual(flags[-1], "-O0")      # CFLAGS_jitterentropy.o comes last
        self.assertNotIn("-mcmodel=kernel", flags)
        self.assertFalse([f for f in flags if f.startswith(("-W", "-I", "-D"))], flags)
        self.assertEqual([d[0] for d in differs],
                         ["-mcmodel=kernel", "-mindirect-branch=thunk-extern",
                          "-mfunction-return=thunk-extern"])

    def test_code_options_of_sha3_generic(self):
        """6.1's SHA-3 gets the options of the kernel's sha3_generic.o: -O2
        (no CFLAGS_ of its own), and CONFIG_64BIT as autoconf.h has it."""
        flags, differs = ec.kernel_object_flags(SHA3_CMD)
        self.assertEqual(flags[flags.index("-fno-allow-store-data-races") - 1], "-O2")
        self.assertNotIn("-O0", flags)
        for f in ("-mno-red-zone", "-mno-sse", "-ftrivial-auto-var-init=zero",
                  "-fstack-protector-strong", "-m64"):
            self.assertIn(f, flags)
        self.assertNotIn("-mcmodel=kernel", flags)
        self.assertEqual(ec.kconfig_macros(flags), ["-DCONFIG_64BIT=1"])
        self.assertEqual(ec.kconfig_macros(["-m32", "-O2"]), [])

    def test_a_bad_record_is_named(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        bad = os.path.join(d, "x.cmd")
        with open(bad, "w") as f:
            f.write("source_crypto/jitterentropy.o := x.c\n")
        with self.assertRaisesRegex(ec.CollectError, r"x.cmd:1: not a kbuild command"):
            ec.kernel_object_flags(bad)
        with self.assertRaisesRegex(ec.CollectError, "make kernel"):
            ec.kernel_object_flags(os.path.join(d, "missing.cmd"))


# A stand-in for 6.1's include/crypto/sha3.h (the real one is in the
# kernel cache, which host tests do not need): a state that counts.
FAKE_SHA3_H = """\
#define SHA3_256_DIGEST_SIZE 32
struct sha3_state {
	u64 bytes;
};
int crypto_sha3_init(struct shash_desc *desc);
int crypto_sha3_update(struct shash_desc *desc, const u8 *data, unsigned int len);
int crypto_sha3_final(struct shash_desc *desc, u8 *out);
"""

# A counting fake of 6.1's SHA-3 and of its core, around pristine_host.c:
# "count" prints what one jent_hash_time() call gives the pool's state and
# the other states, not stuck then stuck; "startup" runs the start-up,
# whose known-answer test this hash (all zeros) fails.
FAKE_C = r"""
#include "collect.h"
#include <crypto/internal/hash.h>
#include <crypto/sha3.h>
#include <stdio.h>
#include <string.h>

static struct shash_desc *pool;
static u64 other_bytes, other_inits, other_finals;

int crypto_sha3_init(struct shash_desc *desc)
{
	((struct sha3_state *)shash_desc_ctx(desc))->bytes = 0;
	other_inits += desc != pool;
	return 0;
}

int crypto_sha3_update(struct shash_desc *desc, const u8 *data, unsigned int len)
{
	(void)data;
	((struct sha3_state *)shash_desc_ctx(desc))->bytes += len;
	if (desc != pool)
		other_bytes += len;
	return 0;
}

int crypto_sha3_final(struct shash_desc *desc, u8 *out)
{
	memset(out, 0, SHA3_256_DIGEST_SIZE);
	((struct sha3_state *)shash_desc_ctx(desc))->bytes = 0;
	other_finals += desc != pool;
	return 0;
}

int jent_entropy_init(void *hash_state) { (void)hash_state; return 0; }
int jent_read_entropy(void *ec, unsigned char *d, unsigned int n)
{ (void)ec; (void)d; (void)n; return 0; }
void *jent_entropy_collector_alloc(unsigned int osr, unsigned int flags, void *h)
{ (void)osr; (void)flags; pool = h; return &pool; }
void jent_entropy_collector_free(void *ec) { (void)ec; }
unsigned long long collect_clock(void) { return 0; }
void collect_sample(unsigned long long delta) { (void)delta; }

int jent_hash_time(void *hash_state, __u64 time, u8 *addtl, unsigned int addtl_len,
		   __u64 hash_loop_cnt, unsigned int stuck);

int main(int argc, char **argv)
{
	u64 addtl = 0x0123456789abcdefULL;
	unsigned int stuck;

	if (argc > 1 && !strcmp(argv[1], "startup"))
		return source_startup();
	if (!source_alloc())
		return 2;
	for (stuck = 0; stuck < 2; stuck++) {
		u64 before = ((struct sha3_state *)shash_desc_ctx(pool))->bytes;

		other_bytes = other_inits = other_finals = 0;
		jent_hash_time(pool, 42, (u8 *)&addtl, sizeof(addtl), 8, stuck);
		printf("%llu %llu %llu %llu\n",
		       ((struct sha3_state *)shash_desc_ctx(pool))->bytes - before,
		       other_bytes, other_inits, other_finals);
	}
	return 0;
}
"""


class PristineHostTest(unittest.TestCase):
    """pristine_host.c is 6.1's glue: built against a counting fake of the
    hash and of the core, without the kernel cache."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="pristine-host-")
        edir = config.top(ec.EDIR)
        os.makedirs(os.path.join(cls.tmp, "include/crypto"))
        with open(os.path.join(cls.tmp, "include/crypto/sha3.h"), "w") as f:
            f.write(FAKE_SHA3_H)
        with open(os.path.join(cls.tmp, "fake.c"), "w") as f:
            f.write(FAKE_C)
        cls.exe = os.path.join(cls.tmp, "host")
        inc = ["-I", edir, "-I", os.path.join(edir, "include"),
               "-I", os.path.join(cls.tmp, "include")]
        subprocess.run(["gcc"] + ec.HOST_CFLAGS + inc +
                       ["-o", cls.exe, os.path.join(edir, "pristine_host.c"),
                        os.path.join(cls.tmp, "fake.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_jent_hash_time_feeds_the_pool_as_6_1(self):
        """6.1's jent_hash_time(): eight hashes of intermediary and addtl in
        a local state, the intermediary into that local state, which is
        thrown away; the pool's state gets the 8 bytes of the time stamp
        when it is not stuck, nothing when it is."""
        out = subprocess.run([self.exe], capture_output=True, text=True,
                             check=True).stdout.split("\n")
        local = [8 * (32 + 8) + 32, 8, 8]     # bytes, inits, finals
        self.assertEqual(out[0].split(), [str(n) for n in [8] + local])
        self.assertEqual(out[1].split(), [str(n) for n in [0] + local])

    def test_a_hash_that_is_not_sha3_refuses_to_collect(self):
        r = subprocess.run([self.exe, "startup"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(len(r.stderr.splitlines()), 1)
        self.assertRegex(r.stderr, r'^collect: pristine-user: the hash is not SHA3-256: '
                         r'SHA3-256\("abc"\) gave 0{64}, FIPS 202 says 3a985da7.*; '
                         r'not collecting\n$')


class StartupFailureTest(unittest.TestCase):
    """collect.c runs a collector's start-up test at every start (the
    consecutive run and each restart): a failure is counted and the test
    run again, as a later module load would; three in a row end the
    collection with one line.  (Before, the first failure ended it: a
    make entropy of 2026-12-06 lost 6.1's collection to one start-up
    failure of 6.1's core, JENT_EHEALTH, among its 1001 starts.)"""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="entropy-startup-")
        edir = config.top(ec.EDIR)
        cls.exe = os.path.join(cls.tmp, "collect")
        subprocess.run(["gcc"] + ec.HOST_CFLAGS + ["-I", edir, "-o", cls.exe,
                        os.path.join(edir, "collect.c"), os.path.join(edir, "zalloc.c"),
                        os.path.join(HERE, "startup_stub.c")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def collect(self, fails):
        env = dict(os.environ, STARTUP_FAILS=fails)
        out = os.path.join(self.tmp, "out-" + fails.replace(",", "-"))
        os.makedirs(out, exist_ok=True)
        return subprocess.run([self.exe, "64", "5", "16", out], capture_output=True,
                              text=True, env=env)

    def test_a_failed_start_is_counted_and_run_again(self):
        r = self.collect("2,5")
        self.assertEqual(r.returncode, 0, r.stderr)
        rec = json.loads(r.stdout.splitlines()[-1])
        self.assertEqual((rec["startup_failures"], rec["restart"]["restarts"]), (2, 5))
        r = self.collect("")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["startup_failures"], 0)

    def test_three_in_a_row_end_the_collection(self):
        r = self.collect("3,4,5")
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "collect: startup-stub: the start-up test failed 3 "
                         "times in a row (last with 9)\n")
        self.assertEqual(r.stdout, "")


class CollectTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="entropy-collect-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_ours_records_every_raw_sample(self):
        """20,000 consecutive samples and 3 restarts of 1000: the sizes, and
        the counted samples of the consecutive run (those not stuck after
        the new collector's priming samples): 320 per block read, less the
        part of the last block the recording stopped in."""
        exe = ec.build("ours-user", os.path.join(self.tmp, "bin"), kernel_cmd=CMD)
        # the kernel's code options reached the core: its returns go
        # through the return thunk, as the kernel object's do
        dis = subprocess.run(["objdump", "-dr", os.path.join(self.tmp, "bin",
                                                             "ours-user-core.o")],
                             capture_output=True, text=True, check=True).stdout
        self.assertIn("__x86_return_thunk", dis)
        out = os.path.join(self.tmp, "ours")
        meta = ec.run(exe, out, 20000, 3, 1000)
        self.assertEqual(meta["seq"]["intermittent"], 0)
        d = ed.read_deltas(os.path.join(out, "deltas.bin"), 20000)
        ed.read_deltas(os.path.join(out, "restart-deltas.bin"), 3000)
        counted = int((~ed.stuck_flags(d)[model.FIRST_PRIMING:]).sum())
        per_block = model.BLOCK_SAMPLES
        self.assertLessEqual(counted, per_block * meta["seq"]["blocks"])
        self.assertGreater(counted, per_block * (meta["seq"]["blocks"] - 1))
        self.assertEqual(meta["restart"]["restarts"], 3)

    def test_pristine_builds_unmodified_and_runs(self):
        """6.1's files from the kernel cache's tag 'pristine', as they are:
        its core, and its SHA-3, which passes FIPS 202's known answers at
        start-up (the collector refuses to run otherwise)."""
        version = kcache.installed_version()
        src = os.path.join(kcache.tree_dir(version or "?"), "src")
        if not version or not kcache.import_stamp(version) or not os.path.isdir(src):
            self.skipTest(f"no imported kernel tree in {kcache.kcache()} (make tangle "
                          "imports it); 6.1's file comes from there")
        pdir = ec.pristine_sources(src, os.path.join(self.tmp, "pristine-src"))
        with open(os.path.join(pdir, "jitterentropy.c"), "rb") as f:
            text = f.read()
        blob = subprocess.run(["git", "-C", src, "show", "pristine:crypto/jitterentropy.c"],
                              capture_output=True, check=True).stdout
        self.assertEqual(text, blob)
        self.assertIn(b"jitterentropy library\n * version 3.4.0", text)
        for path, dest in (("crypto/sha3_generic.c", "sha3_generic.c"),
                           ("include/crypto/sha3.h", "include/crypto/sha3.h")):
            with open(os.path.join(pdir, dest), "rb") as f:
                self.assertEqual(f.read(), subprocess.run(
                    ["git", "-C", src, "show", f"pristine:{path}"],
                    capture_output=True, check=True).stdout)
        exe = ec.build("pristine-user", os.path.join(self.tmp, "bin"), pdir, kernel_cmd=CMD,
                       sha3_cmd=SHA3_CMD)
        kobj = os.path.join(kcache.tree_dir(version), "build-test/crypto/sha3_generic.o")
        if os.path.exists(kobj):
            # the fixture is this kernel's record: the Keccak round the
            # collector times is the kernel object's, instruction for instruction
            self.assertEqual(keccak_round(os.path.join(self.tmp, "bin",
                                                       "pristine-user-sha3.o")),
                             keccak_round(kobj))
        out = os.path.join(self.tmp, "pristine")
        meta = ec.run(exe, out, 5000, 2, 1000)
        self.assertEqual(meta["source"], "pristine-user")
        d = ed.read_deltas(os.path.join(out, "deltas.bin"), 5000)
        self.assertGreater(min(d), 0)
        # 6.1 makes 256 non-stuck deltas and a priming one per block; the
        # recording stops inside the last block read
        self.assertGreaterEqual(5000, 257 * (meta["seq"]["blocks"] - 1))
        self.assertLess(5000, 257 * meta["seq"]["blocks"] * 2)

    def test_a_failing_build_is_one_line(self):
        with self.assertRaisesRegex(ec.CollectError, "does not compile"):
            ec._gcc(["-c", "-o", os.devnull, "-x", "c", "/dev/null", "-include",
                     "no-such-header.h"], "a file")


if __name__ == "__main__":
    unittest.main()
