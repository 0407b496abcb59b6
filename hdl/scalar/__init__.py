"""The scalar cores, one code unit per clock: the decoders and encoders of each form, the byte
order stages, and the two cores built from them, :class:`.transcoder.Transcoder` (any pair)
and :class:`.pipelined.PipelinedUTF8ToUTF16` (UTF-8 to UTF-16, built for clock speed)."""
