"""The runtime layer: the jaxlib bridge, the device-resident Array, and eager dispatch."""
