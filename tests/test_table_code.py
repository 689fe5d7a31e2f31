"""The table code's SPAKE2 exchange (protocol.md §12.2): it holds for the right code only,
the host keeps nothing per joiner, and a joiner refuses a share that would give no secret."""
from __future__ import annotations

import threading

import pytest
import zmq

from saboteur_p2p.crypto.group import IDENTITY, InvalidPoint, add, base_mul, hash_to_point, random_scalar
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.table_code import CODE_PROOF_BYTES, CodeHost, TableCode, prove_code, table_key
from saboteur_p2p.net.lobby import LobbyError, join_lobby
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import open_envelope, seal

SALT = bytes(range(16))
JOINER = bytes(range(32, 64))
NONCE = bytes(range(64, 96))


@pytest.fixture(scope="module")
def host() -> CodeHost:
    return CodeHost("swordfish", SALT)


def _proof(code: str, host: CodeHost, salt: bytes = SALT, joiner: bytes = JOINER, nonce: bytes = NONCE) -> bytes:
    return prove_code(table_key(code, salt), salt, joiner, nonce, host.share(joiner, nonce))


def test_the_right_code_is_accepted_and_every_proof_is_fresh(host):
    first, second = _proof("swordfish", host), _proof("swordfish", host)
    assert len(first) == CODE_PROOF_BYTES and first != second  # the joiner's x is fresh each time
    assert host.check(first, JOINER, NONCE) and host.check(second, JOINER, NONCE)


def test_the_exchange_matches_the_test_vector_of_protocol_md():
    host = CodeHost("swordfish", SALT, rand=lambda n: b"\x11" * n)
    key = table_key("swordfish", SALT)
    share = host.share(JOINER, NONCE)
    proof = prove_code(key, SALT, JOINER, NONCE, share, rand=lambda n: bytes(range(n)))
    assert key.hex() == "65bf6d15c670a230344cc93972cd9d040aa48495abf1fd36334c89f2ad01ddaa"
    assert share.hex() == "d717efca1e484aa9b7672462d68b09e5485627ac1c7b25d4a77aeac4d609654e"
    assert proof[:32].hex() == "d72915e8ba9fe780971a92c9d55568b23bbfce3ac4fe90d5af00644496dc140f"
    assert proof[32:].hex() == "9d29a7d30662bd71d0febbc5f369b3721736e98ef10e7f2adbf221f12e4ad68f"
    assert host.check(proof, JOINER, NONCE)


def test_the_host_s_share_is_the_same_for_a_hello_said_again_and_differs_otherwise(host):
    share = host.share(JOINER, NONCE)
    assert host.share(JOINER, NONCE) == share
    assert host.share(JOINER, bytes(32)) != share and host.share(bytes(32), NONCE) != share
    assert CodeHost("swordfish", SALT).share(JOINER, NONCE) != share  # another table's secret


@pytest.mark.parametrize("case", ["wrong code", "another salt", "another nonce", "another joiner", "another table"])
def test_a_proof_for_anything_else_is_refused(host, case):
    proof = {
        "wrong code": lambda: _proof("swordfisH", host),
        "another salt": lambda: prove_code(table_key("swordfish", bytes(16)), SALT, JOINER, NONCE, host.share(JOINER, NONCE)),
        "another nonce": lambda: _proof("swordfish", host, nonce=bytes(32)),
        "another joiner": lambda: _proof("swordfish", host, joiner=bytes(32)),
        "another table": lambda: _proof("swordfish", CodeHost("swordfish", SALT)),
    }[case]()
    assert not host.check(proof, JOINER, NONCE)


def test_every_flipped_bit_of_a_proof_is_refused(host):
    proof = _proof("swordfish", host)
    for bit in range(8 * CODE_PROOF_BYTES):
        flipped = bytearray(proof)
        flipped[bit // 8] ^= 1 << (bit % 8)
        assert not host.check(bytes(flipped), JOINER, NONCE), bit


@pytest.mark.parametrize("proof", [b"", bytes(64), b"\x07" * 63, b"\x07" * 65, b"\x07" * 64, "x" * 64, None, 7])
def test_malformed_proofs_are_refused_without_raising(host, proof):
    assert not host.check(proof, JOINER, NONCE)  # type: ignore[arg-type]


def test_a_share_that_cancels_the_code_s_mask_gives_no_secret():
    """X = w·M (the joiner's mask alone) would make K the identity at the host, and Y = w·N at
    the joiner: both are refused, not taken as a proof or a secret."""
    host = CodeHost("swordfish", SALT)
    code = TableCode(table_key("swordfish", SALT))
    forged = code.w_m + _proof("swordfish", host)[32:]
    assert not host.check(forged, JOINER, NONCE)
    for bad in (code.w_n, IDENTITY, bytes(32), b"short", None):
        with pytest.raises(InvalidPoint):
            prove_code(table_key("swordfish", SALT), SALT, JOINER, NONCE, bad)


def test_the_masks_are_of_the_code_and_the_bases_are_independent_points():
    a, b = TableCode(table_key("a", SALT)), TableCode(table_key("b", SALT))
    assert a.w_m != b.w_m and a.w_n != b.w_n and a.w_m != a.w_n
    m, n = hash_to_point("table-code-m"), hash_to_point("table-code-n")
    assert m != n and add(m, base_mul(random_scalar())) != n


@pytest.mark.parametrize("share", [IDENTITY, b"\x00" * 31, "not bytes", None])
def test_a_joiner_refuses_a_table_whose_code_share_is_not_a_point(share):
    """A fake table that asks for the code with a share that is not a point of the group gets
    a clear refusal, not a proof."""
    context = zmq.Context()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    fake = Identity.generate()

    def answer() -> None:
        if router.poll(10_000):
            peer, data = router.recv_multipart()
            assert open_envelope(data).kind == "hello"
            router.send_multipart([peer, seal(fake, "code", {"salt": SALT, "share": share})])

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    transport = Transport("127.0.0.1:0", context)
    try:
        with pytest.raises(LobbyError, match="bad share"):
            join_lobby(Identity.generate(), "ann", transport, f"127.0.0.1:{port}", "swordfish", lambda text: None,
                       timeout=10)
    finally:
        thread.join(timeout=10)
        transport.close()
        router.close()
        context.destroy(linger=0)
