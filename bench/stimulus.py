"""Stimulus for the benches: long inputs that mix text with bytes malformed in every encoding,
and the messages a bench sends."""

import functools
import pathlib
import random


__all__ = ["stress_input", "stress_messages"]


# Bytes and units that drive decoders into their error paths, mixed with text, so the rate is
# measured on the hard cases and not only on clean input.
_STRESS_BYTES = [0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0xFE, 0xEF,
                 0xBB, 0x00, 0xD8, 0xDC, 0x41]
_STRESS_TEXT = "a\u00e9\u0416\u4e2d\ufeff\U0001F600\U0010FFFF"
_STRESS_POOL = 4096


def stress_input(source, length, seed=0):
    """``length`` bytes for codec ``source``: stretches of encoded text alternating with
    stretches of bytes that are malformed in every encoding, in random order and cut anywhere.

    The stretches are drawn from a pool of a few thousand, so that megabytes (for the Verilator
    backend) take well under a second to make."""
    pool, state = _pool(source, seed)
    rng = random.Random()
    rng.setstate(state)
    parts = []
    size = 0
    while size < length:
        # Stretches average about 8 bytes, so this takes a few rounds whatever the length.
        drawn = rng.choices(pool, k=max(16, (length - size) // 8))
        parts.extend(drawn)
        size += sum(map(len, drawn))
    return b"".join(parts)[:length]


# Tests ask for many short inputs of one codec and seed: the pool is made once for them, and
# the generator goes on from where making it left it.
@functools.lru_cache(maxsize=256)
def _pool(source, seed):
    """The stretches :func:`stress_input` draws from, and the state of its generator after."""
    rng = random.Random(seed)

    def stretch():
        if rng.random() < 0.5:
            return bytes(rng.choices(_STRESS_BYTES, k=rng.randrange(1, 16)))
        # Latin-1 and ASCII hold few of its characters: "?" for the others.
        return "".join(rng.choices(_STRESS_TEXT, k=rng.randrange(1, 8))).encode(source, "replace")

    return tuple(stretch() for _ in range(_STRESS_POOL)), rng.getstate()


def stress_messages(source, seed=0, extra=None):
    """Messages for a bench: multilingual text, malformed input and byte order mark cases in
    codec ``source``, then :func:`stress_input` cut into messages of 1 to 199 bytes, and the
    file ``extra`` (a path) as one more message if given."""

    text = "Gr\u00fc\u00dfe, \u041f\u0440\u0438\u0432\u0435\u0442, \u4f60\u597d, " \
           "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 \U0001F600\U0010FFFF"
    encoded = text.encode(source, "replace")         # "?" where Latin-1 or ASCII cannot
    messages = [encoded, b"", "\ufeff".encode(source, "replace") + encoded[:5],
                b"\xef\xbb\xbf\xc3\xa9\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
                b"\xff\xfe\x00\xd8A\x00\x00\xdc\x00", b"\x00\x00\xfe\xff\x00\x11\x00\x00\x41"]
    stress = stress_input(source, 4000, seed)
    rng = random.Random(seed)
    while stress:
        cut = rng.randrange(1, 200)
        messages.append(stress[:cut])
        stress = stress[cut:]
    if extra:
        messages.append(pathlib.Path(extra).read_bytes())
    return messages
