"""The lane layer of the wide cores: stages that move items of any layout in beats of W lanes,
knowing nothing of any codec. Each beat seen with the lanes around it (:mod:`.window`), items
packed and beats refilled to full width (:mod:`.repack`), an output
queue that absorbs what is in flight under backpressure (:mod:`.queue`), and the base of a stage
whose latency is a function of its width (:mod:`.stage`). Imports only the layouts and
argument checks of :mod:`utfhw.hdl.unicode`."""
