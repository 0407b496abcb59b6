"""The memory benchmark's input (the benchmark itself measures, so no test runs it)."""

from utfhw.bench.memory import write_mixed_utf8


def test_mixed_utf8_is_seeded(tmp_path):
    write_mixed_utf8(tmp_path / "a", 3_000_000, seed=4)
    write_mixed_utf8(tmp_path / "b", 3_000_000, seed=4)
    write_mixed_utf8(tmp_path / "c", 3_000_000, seed=5)
    data = (tmp_path / "a").read_bytes()
    assert len(data) == 3_000_000 and data == (tmp_path / "b").read_bytes()
    assert data != (tmp_path / "c").read_bytes()
    text = data.decode("utf-8", "replace")
    # Every UTF-8 length, and a few malformed bytes.
    assert {len(c.encode()) for c in text} == {1, 2, 3, 4}
    assert 0 < text.count("\ufffd") < len(text) // 100
