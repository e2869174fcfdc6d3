"""The sandbox around every started bot: bubblewrap namespaces (``bwrap``) and a seccomp
filter (``seccomp``)."""
