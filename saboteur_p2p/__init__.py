"""saboteur-p2p: Saboteur played peer to peer, and bot tournaments."""
from __future__ import annotations

__version__ = "0.1.0"
