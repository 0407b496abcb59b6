"""The wide cores, W bytes per clock: the UTF-8 stages that classify and decode each lane
(:mod:`.utf8`) and :class:`.core.WideUTF8ToUTF16`, which joins them with the lane layer
(:mod:`utfhw.hdl.lanes`)."""
