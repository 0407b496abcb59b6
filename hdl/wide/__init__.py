"""The wide cores, W bytes per clock: the UTF-8 stages that classify and decode each lane
(:mod:`.utf8`) and :class:`.core.WideTranscoder` (UTF-8 to UTF-16 or UTF-32;
:class:`.core.WideUTF8ToUTF16` by its older name), which joins them with the lane layer
(:mod:`utfhw.hdl.lanes`)."""
