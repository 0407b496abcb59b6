"""Programming a board with the bridge's bitstream, with a programmer installed on the system
(openFPGALoader, or iceprog for the iCEBreaker); utfhw installs none."""

import pathlib

from ..toolchain.tools import ToolchainError, find_program, run
from .build import TOP_NAME
from .top import BOARDS


__all__ = ["PROGRAMMERS", "default_bitstream", "programmer_command", "program"]


#: For each board, the programmers that can load it, as ``(program, arguments before the
#: bitstream)``, the first found used. openFPGALoader's names of the boards are those of its
#: ``src/board.hpp`` (the iCEBreaker is its ``ice40_generic``); each is in its release 0.10.0,
#: Debian's, but the Tang Mega 138K's, from 0.12.0.
PROGRAMMERS = {
    "icebreaker": (("openFPGALoader", ("-b", "ice40_generic")), ("iceprog", ())),
    "ulx3s-85f": (("openFPGALoader", ("-b", "ulx3s")),),
    # No programmer on the board: openFPGALoader then takes an FT2232 JTAG adapter on its pads
    # (another needs ``-c CABLE``, run by hand).
    "colorlight-5a-75b": (("openFPGALoader", ("-b", "colorlight")),),
    "tang-nano-9k": (("openFPGALoader", ("-b", "tangnano9k")),),
    "tang-primer-20k": (("openFPGALoader", ("-b", "tangprimer20k")),),
    "tang-mega-138k-pro": (("openFPGALoader", ("-b", "tangmega138k")),),
}

#: Seconds a programmer is given.
_PROGRAM_SECONDS = 300


def default_bitstream(board):
    """Where ``utfhw build --board BOARD`` puts the bitstream by default."""
    return pathlib.Path("build", board, f"{TOP_NAME}.{BOARDS[board].bitstream}")


def programmer_command(board, bitstream):
    """The command that loads ``bitstream`` into ``board`` with the first programmer of
    :data:`PROGRAMMERS` found; :exc:`~utfhw.toolchain.tools.ToolchainError` saying what to
    install, and the command to run then, if there is none."""
    for name, arguments in PROGRAMMERS[board]:
        found = find_program(name)
        if found is not None:
            return [found, *arguments, str(bitstream)]
    names = " or ".join(name for name, _ in PROGRAMMERS[board])
    name, arguments = PROGRAMMERS[board][0]
    raise ToolchainError(f"no programmer for the {board} found: install {names} (Debian: apt "
                         f"install openfpgaloader), then run: "
                         f"{' '.join([name, *arguments, str(bitstream)])}")


def program(board, bitstream):
    """Load ``bitstream`` (a path) into ``board``, returning the command run. Raises
    :exc:`FileNotFoundError` if there is no such file,
    :exc:`~utfhw.toolchain.tools.ToolchainError` if no programmer is installed, and
    :exc:`~utfhw.toolchain.tools.BuildError` if the programmer fails."""
    bitstream = pathlib.Path(bitstream)
    if not bitstream.is_file():
        raise FileNotFoundError(f"{bitstream} does not exist: make it with utfhw build "
                                f"--board {board}")
    command = programmer_command(board, bitstream)
    run(command, what=f"programming the {board}", timeout=_PROGRAM_SECONDS)
    return command
