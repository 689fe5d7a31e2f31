"""The rules engine stands alone: importing it loads no networking, terminal or clock code of ours."""
from __future__ import annotations

import subprocess
import sys


def test_rules_import_loads_no_io_modules():
    code = (
        "import sys; import saboteur_p2p.rules; "
        "bad = [m for m in ('zmq', 'prompt_toolkit', 'socket', 'saboteur_p2p.net', 'saboteur_p2p.client', 'msgpack') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
