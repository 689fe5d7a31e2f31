"""Sockets and timing: ZeroMQ transport, lobby, and the peer's game session loop."""
