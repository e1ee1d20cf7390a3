# SPDX-License-Identifier: GPL-2.0-only
"""The verb book's two outputs: output.build() makes the HTML beside the
PDF (both from the same Markdown), writes build.json once both are
done, and an HTML that fails still stops the build with its message,
after the PDF has ended.  The renderer and the two writers are
stand-ins: what is tested is the order, not pandoc."""

import os
import shutil
import tempfile
import threading
import unittest
from types import SimpleNamespace as NS
from unittest import mock

from harness.stages.book import output


class BuildOrderTest(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="book-output-")
        self.addCleanup(shutil.rmtree, self.d)
        self.html_started, self.pdf_started = threading.Event(), threading.Event()
        self.done, self.beside = [], []
        rd = NS(markdown=lambda: "# the book\n", warnings=[], traces=[],
                book=NS(chunks=[], ident_index={}))
        for obj, name, value in ((output, "Renderer", mock.Mock(return_value=rd)),
                                 (output, "build_info", self.info),
                                 (output, "write_pdf", self.pdf),
                                 (output, "write_html", self.html),
                                 (output, "print", mock.Mock())):
            p = mock.patch.object(output, name, value, create=(name == "print"))
            p.start()
            self.addCleanup(p.stop)
        self.html_fails = False

    def info(self, rd, t0):
        self.done.append("info")
        return {"seconds": 0.0}

    def html(self, rd, md, outdir):
        self.assertEqual(md, "# the book\n")
        self.html_started.set()
        self.beside.append(self.pdf_started.wait(30))
        if self.html_fails:
            raise SystemExit("book: pandoc (pandoc html) failed: stand-in")
        self.done.append("html")

    def pdf(self, rd, md, outdir):
        self.assertEqual(md, "# the book\n")
        # Each waits for the other to have started: a build that made
        # them one after the other would wait in vain in the first.
        self.pdf_started.set()
        self.beside.append(self.html_started.wait(30))
        self.done.append("pdf")

    def test_the_html_is_made_beside_the_pdf(self):
        output.build(self.d)
        self.assertEqual(self.beside, [True, True])
        self.assertEqual(sorted(self.done[:2]), ["html", "pdf"])
        self.assertEqual(self.done[2:], ["info"])
        self.assertTrue(os.path.exists(os.path.join(self.d, "build.json")))

    def test_a_failed_html_stops_the_build_after_the_pdf(self):
        self.html_fails = True
        with self.assertRaises(SystemExit) as e:
            output.build(self.d)
        self.assertIn("pandoc html", str(e.exception))
        self.assertEqual(self.done, ["pdf"])
        self.assertFalse(os.path.exists(os.path.join(self.d, "build.json")))


if __name__ == "__main__":
    unittest.main()
