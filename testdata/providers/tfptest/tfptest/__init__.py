"""tfptest: a Pyvider provider whose resources leave evidence on disk for tests to check.

Pyvider imports this package and every module in it to find the components; importing has no side
effects beyond registering them.
"""
