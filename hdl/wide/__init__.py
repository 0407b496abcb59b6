"""The wide cores, W bytes per clock: the stages that decode each lane of UTF-8 (:mod:`.utf8`),
UTF-16 (:mod:`.utf16`) and UTF-32 (:mod:`.utf32`), encode code points (:mod:`.encode`),
expand UTF-8 to UTF-8's replacements (:mod:`.expand`) and read marks (:mod:`.marks`), and
:class:`.core.WideTranscoder` (any of the 64 pairs; :class:`.core.WideUTF8ToUTF16` by its older
name), which joins them with the lane layer (:mod:`utfhw.hdl.lanes`)."""
