"""The protocol itself, sans-I/O: envelopes, the revision table, rendering."""
