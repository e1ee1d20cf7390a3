# SPDX-License-Identifier: GPL-2.0-only
"""Facts the book states about the standards, checked against the
standards' own numbers (issue 16, item 11): seed lengths computed from the
security strengths, the clauses cited for them, and the FIPS 140-3 wording
of the entropy caveat."""

import glob
import re
import unittest

from harness.base import config
from harness.judges.seeds import STRENGTH


def chapter(name):
    with open(config.top("chapters", name)) as f:
        return f.read()


def book():
    text = ""
    for p in sorted(glob.glob(config.top("chapters", "*.nw"))) + [config.top("spec.nw")]:
        with open(p) as f:
            text += f.read()
    return text


class BookFactsTest(unittest.TestCase):
    def test_introduction_seed_lengths(self):
        """3/2 of each strength, in bytes, as the introduction lists them."""
        intro = " ".join(chapter("01-introduction.nw").split())
        want = sorted({s + s // 2 for s in STRENGTH.values()})
        m = re.search(r"(\d+) bytes for a 128-bit instance, (\d+) for 192 bits, "
                      r"(\d+) for 256 bits", intro)
        self.assertIsNotNone(m, "the introduction no longer lists the lengths")
        self.assertEqual([int(g) for g in m.groups()], want)

    def test_entropy_requirement_clause(self):
        """SP 800-90A Rev. 1 states the entropy requirement of the entropy
        input in 8.6.3; 8.6.5 is about its source."""
        text = " ".join(book().split())
        self.assertNotRegex(text, r"at least that much entropy \(section 8\.6\.5\)")
        self.assertIn("at least that much entropy (section 8.6.3)", text)

    def test_get_entropy_input_step(self):
        """Get_entropy_input is step 6 of the instantiate function (9.1)."""
        text = " ".join(chapter("30-drbg-seeding.nw").split())
        self.assertNotRegex(text, r"9\.1 step 3 requests")
        self.assertIn("step 6 of the instantiate function, section 9.1", text)

    def test_fips_140_3_caveat_wording(self):
        text = " ".join(chapter("30-drbg-seeding.nw").split())
        self.assertNotIn("generates cryptographic keys whose strengths", text)
        self.assertIn("generates SSPs (e.g., keys) whose strengths are modified by "
                      "available entropy", text)
        self.assertIn("IG 9.3.A", text)

    def test_concatenation_argued_in_min_entropy(self):
        text = " ".join(chapter("30-drbg-seeding.nw").split())
        self.assertIn("H_\\infty(A \\,\\|\\, B) \\ge H_\\infty(B)", text)
        self.assertNotIn("with equality to $H(B)$ when the sources are independent",
                         text)

    def test_acvp(self):
        """CAVP validates through ACVP since 2020: the CAVS chapter says so,
        and the book names the protocol."""
        self.assertIn("since 2020 the program validates algorithms through ACVP",
                      " ".join(chapter("50-cavs.nw").split()))
        self.assertIn("Automated Cryptographic Validation Protocol", " ".join(book().split()))


if __name__ == "__main__":
    unittest.main()
