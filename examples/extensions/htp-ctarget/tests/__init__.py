"""Tests of htp-ctarget (a package, so its conftest does not shadow python/tests/conftest.py)."""
