"""The external programs utfhw runs: where each is found and how it is run (``tools``), and the
folder where conversions, builds and tool locks are kept between runs (``cache``). Imports
nothing else of utfhw."""
