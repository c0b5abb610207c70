"""rocktile's version: part of every compile cache key (rocktile.cache)."""
__version__ = "0.1.0"
