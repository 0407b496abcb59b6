"""The cores, each built from the forms' stages: the :class:`~.transcoder.Transcoder` (any pair,
one code unit a clock), :class:`~.pipelined.PipelinedUTF8ToUTF16` and the
:class:`~.wide.WideTranscoder` (W bytes a clock), and :class:`~.spec.CoreSpec`, the one name
of a core."""

from .spec import (Core, PIPELINED_PAIRS, WIDE_PAIRS, CORE_KINDS, CoreSpec, check_core,
                   check_hardware_errors, make_core)


__all__ = ["Core", "PIPELINED_PAIRS", "WIDE_PAIRS", "CORE_KINDS", "CoreSpec", "check_core",
           "check_hardware_errors", "make_core"]
