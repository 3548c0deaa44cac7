"""What a node offers: its accelerators (device plugin and DRA), driver, price and idle GPUs (`nodes.NodeRow`),
and which resources, labels and DRA drivers mean "an accelerator" (`resources`). Several analyses read
these; none owns them."""
