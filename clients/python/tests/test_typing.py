"""mypy --strict (pinned in requirements.txt) over the package itself, over every ```python block
of the client's README and over typing/research.py and research_aio.py (typical research scripts,
sync and asyncio); and typing/wrong.py must fail on exactly its marked lines, so that the types are
known to be checked, not Any.

Without mypy the test fails under CI (the stage installs it) and is skipped elsewhere with the
command that installs it."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

import harness

TYPING = os.path.join(harness.HERE, "typing")
CONFIG = os.path.join(harness.CLIENT_DIR, "pyproject.toml")


def readme_blocks():
    return harness.readme_python_blocks()


def have_mypy():
    return subprocess.run([sys.executable, "-c", "import mypy"], capture_output=True).returncode == 0


class Typing(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not have_mypy():
            if os.environ.get("CI"):
                raise AssertionError("mypy is not installed (clients/python/tests/requirements.txt pins it)")
            raise unittest.SkipTest("mypy is not installed: %s -m pip install -r %s"
                                    % (sys.executable, os.path.join(harness.HERE, "requirements.txt")))
        cls.tmp = tempfile.mkdtemp(prefix="tradeapi-mypy-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def mypy(self, *paths):
        """mypy --strict (the [tool.mypy] of pyproject.toml) with one cache for the class; (rc, output)."""
        cmd = [sys.executable, "-m", "mypy", "--config-file", CONFIG, "--cache-dir", os.path.join(self.tmp, "cache"),
               "--no-error-summary", "--hide-error-context"] + list(paths)
        r = subprocess.run(cmd, cwd=harness.CLIENT_DIR, capture_output=True, text=True, timeout=300)
        return r.returncode, r.stdout + r.stderr

    def test_1_package_readme_and_research_script_pass_strict(self):
        blocks = readme_blocks()
        self.assertGreaterEqual(len(blocks), 2, "the README's Python examples")
        paths = []
        for i, block in enumerate(blocks):
            path = os.path.join(self.tmp, "readme_example_%d.py" % i)
            with open(path, "w", encoding="utf-8") as f:
                f.write(block)
            paths.append(path)
        started = time.monotonic()
        rc, out = self.mypy("tradeapi_client", os.path.join(TYPING, "research.py"), os.path.join(TYPING, "research_aio.py"),
                            *paths)
        sys.stderr.write("[mypy --strict: package + %d README examples + research*.py in %.1f s] "
                         % (len(paths), time.monotonic() - started))
        self.assertEqual(rc, 0, out)

    def test_2_mistakes_are_reported_on_their_lines(self):
        path = os.path.join(TYPING, "wrong.py")
        with open(path, encoding="utf-8") as f:
            marked = [i + 1 for i, line in enumerate(f) if "# error:" in line]
        self.assertGreater(len(marked), 5)
        rc, out = self.mypy(path)
        self.assertEqual(rc, 1, out)
        reported = sorted(set(int(m) for m in re.findall(r"wrong\.py:(\d+): error:", out)))
        self.assertEqual(reported, marked, out)


if __name__ == "__main__":
    unittest.main()
