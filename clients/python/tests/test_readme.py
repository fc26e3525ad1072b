"""README.md's "From Python" section, run verbatim against a simulated gateway."""
import os
import re
import subprocess
import sys
import unittest

import harness


def readme_block():
    text = open(os.path.join(harness.ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("\n## From Python\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert len(blocks) == 1, "the From Python section has one python block"
    return blocks[0]


class Readme(unittest.TestCase):
    def test_from_python_runs_verbatim(self):
        gw = harness.sim_gateway()
        try:
            env = dict(os.environ, TRADEAPI_URL=gw.url, PYTHONPATH=harness.CLIENT_DIR)
            env.pop("TRADEAPI_KEY", None)
            r = subprocess.run([sys.executable, "-c", readme_block()], env=env, capture_output=True, text=True, timeout=60)
        finally:
            gw.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 3, r.stdout)
        self.assertRegex(lines[0], r"^USD \d+\.\d+$")
        self.assertEqual(lines[1], "60 24")
        self.assertEqual(lines[2], "None -7")


if __name__ == "__main__":
    unittest.main()
