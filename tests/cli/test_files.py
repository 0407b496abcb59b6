"""How the command line writes its outputs (cli/files.py): as a Unix tool does, a regular file
replaced whole with the mode it had or the umask's, a link written through, a FIFO or a
character device written to directly, and nothing else replaced."""

import os
import stat
import threading

import pytest

from utfhw.cli import main
from utfhw.cli.files import write_output


@pytest.fixture
def umask():
    """Set the umask for a test, and put the old one back after it."""
    old = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(old)


@pytest.mark.parametrize("mask,mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_file_has_the_mode_the_umask_gives(tmp_path, umask, mask, mode):
    umask(mask)
    write_output(str(tmp_path / "out.v"), b"module")
    assert stat.S_IMODE(os.stat(tmp_path / "out.v").st_mode) == mode
    assert (tmp_path / "out.v").read_bytes() == b"module"


def test_a_file_keeps_its_mode(tmp_path, umask):
    umask(0o077)
    output = tmp_path / "out.v"
    output.write_bytes(b"old")
    output.chmod(0o640)
    write_output(str(output), b"new")
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o640
    assert output.read_bytes() == b"new"
    assert [path.name for path in tmp_path.iterdir()] == ["out.v"]     # no temporary left


def test_a_link_is_written_through(tmp_path):
    target = tmp_path / "real" / "out.v"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link.v"
    link.symlink_to(target)
    write_output(str(link), b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new"
    # A link to nothing yet makes its target.
    dangling = tmp_path / "dangling.v"
    dangling.symlink_to(tmp_path / "real" / "made.v")
    write_output(str(dangling), b"made")
    assert dangling.is_symlink() and (tmp_path / "real" / "made.v").read_bytes() == b"made"


def test_a_fifo_is_written_to(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(str(fifo), b"through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_character_device_is_written_to(tmp_path):
    """A device node of the test's own, with /dev/null's numbers (1, 3): written to, never
    replaced by a file."""
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root")
    write_output(str(device), b"gone")
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert os.stat(device).st_rdev == os.makedev(1, 3)


def test_a_folder_is_refused(tmp_path):
    folder = tmp_path / "out.v"
    folder.mkdir()
    with pytest.raises(IsADirectoryError) as error:
        write_output(str(folder), b"x")
    assert error.value.filename == str(folder)
    assert folder.is_dir() and not any(folder.iterdir())


def test_transcode_writes_through_a_link(tmp_path, umask):
    """The command line end to end: the output a link, the file it names replaced with the
    umask's mode, the link kept."""
    umask(0o022)
    (tmp_path / "in.txt").write_bytes("h\u00e9llo".encode())
    link = tmp_path / "out.bin"
    link.symlink_to(tmp_path / "real.bin")
    assert main(["transcode", str(tmp_path / "in.txt"), str(link), "--sim", "amaranth"]) == 0
    assert link.is_symlink()
    assert (tmp_path / "real.bin").read_bytes() == "h\u00e9llo".encode("utf-16-le")
    assert stat.S_IMODE(os.stat(tmp_path / "real.bin").st_mode) == 0o644
