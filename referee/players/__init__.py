"""A seat at the table: a bot process (started, possibly sandboxed) or a TCP connection, its
handshake, and the bots file that says how bots are built and started."""
